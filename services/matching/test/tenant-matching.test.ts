import type { Address } from '@rm/contracts';
import { describe, expect, it } from 'vitest';
import type { Combination } from '../src/domain/combination.js';
import { INPUT_ENTITY, keptAddressOf, TenantMatching, type Input, type Touched } from '../src/domain/tenant-matching.js';
import { hour, span } from './fixtures.js';
import { pairs, tenantOf } from './tenant-inputs.js';

/* Inputs as the engine makes them of events: times in hours from the fixtures' Monday, everyone at home base `hb` unless told. */

type Data = Record<string, unknown>;
type Hours = [number, number];

const iso = (hours: number) => new Date(hour(hours)).toISOString();
const BEFORE_EVERYTHING = hour(-24);
const DEPOT: Address = { name: 'Depot', address_line: 'Kaai 1', city: 'Gent', zip_code: '9000', country_code: 'BE' };
const MOVED_DEPOT: Address = { ...DEPOT, address_line: 'Dok 9' };

const input = (entity: string, id: string, data: Data, version = 1): Input => ({ entity, id, version, deleted: false, data });
/** The delete of an input: a newer version carrying the state it had. */
const removed = (of: Input, version = of.version + 1): Input => ({ ...of, version, deleted: true });
/** A newer version of an input with some fields changed. */
const updated = (of: Input, changes: Data, version = of.version + 1): Input => ({ ...of, version, data: { ...of.data, ...changes } });

const homeBase = (id: string, address: Address = DEPOT) => input(INPUT_ENTITY.homeBase, id, { business_id: id, name: id, address });
const AT_HB = { home_base: { business_id: 'hb' } };
const employee = (id: string, fields: Data = {}) => input(INPUT_ENTITY.employee, id, { business_id: id, ...AT_HB, ...fields });
const availability = (employeeId: string, id: string, [from, to]: Hours, fields: Data = {}) =>
  input(INPUT_ENTITY.availability, `${employeeId}/${id}`, {
    id,
    employee_id: employeeId,
    earliest_start: iso(from),
    max_duration: `PT${to - from}H`,
    ...fields,
  });
const employeeUnavailability = (employeeId: string, key: string, [from, to]: Hours) =>
  input(INPUT_ENTITY.employeeUnavailability, `${employeeId}/${key}`, { id: key, employee_id: employeeId, from: iso(from), to: iso(to) });
const resource = (id: string, fields: Data = {}) =>
  input(INPUT_ENTITY.transportResource, id, { business_id: id, type: 'TRUCK', inactive: false, ...AT_HB, ...fields });
const resourceUnavailability = (resourceId: string, key: string, [from, to]: Hours) =>
  input(INPUT_ENTITY.transportResourceUnavailability, `${resourceId}/${key}`, {
    id: key,
    transport_resource_id: resourceId,
    from: iso(from),
    to: iso(to),
  });
const deployment = (id: string, employeeId: string, resourceIds: string[], [from, to]: Hours, fields: Data = {}) =>
  input(INPUT_ENTITY.deployment, id, {
    id,
    employee_id: employeeId,
    transport_resource_ids: resourceIds,
    start: { at: iso(from), location: { home_base: { business_id: 'hb' } } },
    end: { at: iso(to) },
    ...fields,
  });

/** Home base hb with these transport resources, and two employees with a shift each: e1's a1 and e2's a2 (6:00–14:00 unless told). */
const twoShifts = (resourceIds: string[], { a2 = [6, 14], shiftFields = {} }: { a2?: Hours; shiftFields?: Data } = {}): Input[] => [
  homeBase('hb'),
  ...resourceIds.map((id) => resource(id)),
  employee('e1'),
  availability('e1', 'a1', [6, 14], shiftFields),
  employee('e2'),
  availability('e2', 'a2', a2, shiftFields),
];

/** The live (matcher-owned) combinations, as the engine hands stored ones back to restore. */
function liveCombinations(tenant: TenantMatching): Combination[] {
  return tenant.availabilityIds().flatMap((availabilityId) => {
    const combination = tenant.combination(availabilityId);
    const transportResourceId = combination?.transportResourceIds[0];
    if (combination === undefined || combination.deploymentId !== undefined || transportResourceId === undefined) return [];
    return [{ availabilityId, employeeId: combination.employeeId, transportResourceId }];
  });
}

const nothing = (): Touched => ({ snapshots: new Set(), combinations: new Set() });

describe('a snapshot waits for its employee', () => {
  it('builds no snapshot from an availability alone, and the snapshot and its combination once the employee comes', () => {
    const tenant = new TenantMatching();
    tenant.apply(homeBase('hb'), BEFORE_EVERYTHING);
    tenant.apply(resource('r1'), BEFORE_EVERYTHING);
    tenant.apply(availability('e1', 'a1', [6, 14]), BEFORE_EVERYTHING);
    expect(tenant.availableEmployee('a1')).toBeUndefined();
    expect(tenant.combination('a1')).toBeUndefined();
    expect(tenant.availabilityIds()).toEqual([]);

    const touched = tenant.apply(employee('e1', { driver_skills: ['C'] }), BEFORE_EVERYTHING);
    expect(touched.snapshots).toEqual(new Set(['a1']));
    expect(touched.combinations.has('a1')).toBe(true);
    expect(tenant.availabilityIds()).toEqual(['a1']);
    expect(tenant.availableEmployee('a1')).toMatchObject({
      availabilityId: 'a1',
      employeeId: 'e1',
      window: span(6, 14),
      guaranteed: span(6, 14),
      location: { kind: 'home-base', id: 'hb' },
      driverSkills: ['C'],
      address: DEPOT,
    });
    expect(tenant.combination('a1')).toMatchObject({ employeeId: 'e1', transportResourceIds: ['r1'], linked: false });
    expect(tenant.combination('a1')).not.toHaveProperty('deploymentId');
  });

  it('drops the snapshot and frees the resource when the employee is deleted, and builds it again when the employee returns', () => {
    const person = employee('e1');
    const tenant = tenantOf([homeBase('hb'), resource('r1'), person, availability('e1', 'a1', [6, 14])]);
    const touched = tenant.apply(removed(person), BEFORE_EVERYTHING);
    expect(touched.snapshots).toEqual(new Set(['a1']));
    expect(touched.combinations.has('a1')).toBe(true);
    expect(tenant.availableEmployee('a1')).toBeUndefined();
    expect(tenant.combination('a1')).toBeUndefined();
    // the resource is free again for someone else
    tenant.apply(employee('e2'), BEFORE_EVERYTHING);
    tenant.apply(availability('e2', 'a2', [8, 12]), BEFORE_EVERYTHING);
    expect(pairs(tenant)).toEqual({ a2: 'r1' });

    tenant.apply(updated(person, {}, 3), BEFORE_EVERYTHING);
    expect(tenant.availableEmployee('a1')?.employeeId).toBe('e1');
    expect(tenant.availabilityIds().sort()).toEqual(['a1', 'a2']);
  });
});

describe('versions', () => {
  it('changes nothing for an equal or older version', () => {
    const person = updated(employee('e1', { driver_skills: ['C'] }), {}, 2);
    const tenant = tenantOf([homeBase('hb'), resource('r1'), person, availability('e1', 'a1', [6, 14])]);
    const before = tenant.availableEmployee('a1');
    expect(tenant.apply(person, BEFORE_EVERYTHING)).toEqual(nothing());
    expect(tenant.apply(updated(person, { driver_skills: ['D'] }, 2), BEFORE_EVERYTHING)).toEqual(nothing());
    expect(tenant.apply(updated(person, { driver_skills: ['D'] }, 1), BEFORE_EVERYTHING)).toEqual(nothing());
    expect(tenant.apply(removed(person, 2), BEFORE_EVERYTHING)).toEqual(nothing());
    expect(tenant.availableEmployee('a1')).toBe(before);
    expect(tenant.availableEmployee('a1')?.driverSkills).toEqual(['C']);
    expect(pairs(tenant)).toEqual({ a1: 'r1' });
  });

  it('does not bring a deleted availability back with an older update', () => {
    const shift = availability('e1', 'a1', [6, 14]);
    const tenant = tenantOf([homeBase('hb'), resource('r1'), employee('e1'), shift, removed(shift, 3)]);
    expect(tenant.availableEmployee('a1')).toBeUndefined();
    expect(tenant.apply(updated(shift, { mandatory: true }, 2), BEFORE_EVERYTHING)).toEqual(nothing());
    expect(tenant.availableEmployee('a1')).toBeUndefined();
    expect(tenant.combination('a1')).toBeUndefined();
    expect(tenant.availabilityIds()).toEqual([]);
  });

  it('does not bring a deleted transport resource back with an older update', () => {
    const truck = resource('r1');
    const tenant = tenantOf([homeBase('hb'), employee('e1'), availability('e1', 'a1', [6, 14]), truck, removed(truck, 5)]);
    expect(tenant.combination('a1')).toBeUndefined();
    expect(tenant.apply(updated(truck, { labels: ['x'] }, 4), BEFORE_EVERYTHING)).toEqual(nothing());
    expect(tenant.combination('a1')).toBeUndefined();
  });

  it('keeps versions per entity: the same id of another entity is not an older version', () => {
    const tenant = tenantOf([homeBase('hb'), updated(employee('x'), {}, 7), availability('x', 'a1', [6, 14])]);
    // a transport resource that shares the employee's business id, at version 1
    tenant.apply(resource('x'), BEFORE_EVERYTHING);
    expect(pairs(tenant)).toEqual({ a1: 'x' });
  });
});

describe('employee updates and unavailabilities', () => {
  const base = () => [
    homeBase('hb'),
    resource('r1', { requirements: ['C'] }),
    employee('e1'),
    availability('e1', 'a1', [6, 14]),
    availability('e1', 'a2', [30, 38]),
    employee('e2', { driver_skills: ['C'] }),
    availability('e2', 'a3', [54, 62]),
  ];

  it("rebuilds every one of the employee's snapshots, and only those", () => {
    const tenant = tenantOf(base());
    expect(pairs(tenant)).toEqual({ a3: 'r1' });
    const touched = tenant.apply(updated(employee('e1'), { driver_skills: ['C'], skills: ['forklift'] }), BEFORE_EVERYTHING);
    expect(touched.snapshots).toEqual(new Set(['a1', 'a2']));
    expect(touched.combinations).toEqual(new Set(['a1', 'a2']));
    expect(tenant.availableEmployee('a1')).toMatchObject({ driverSkills: ['C'], skills: ['forklift'] });
    expect(tenant.availableEmployee('a2')).toMatchObject({ driverSkills: ['C'], skills: ['forklift'] });
    expect(pairs(tenant)).toEqual({ a1: 'r1', a2: 'r1', a3: 'r1' });
    expect(tenant.combination('a1')?.capabilities).toEqual(['forklift']);
  });

  it('rebuilds the snapshots on an employee unavailability, and rule 5 takes the combination it overlaps away', () => {
    const tenant = tenantOf([...base(), updated(employee('e1'), { driver_skills: ['C'] })]);
    expect(pairs(tenant)).toEqual({ a1: 'r1', a2: 'r1', a3: 'r1' });
    const sick = employeeUnavailability('e1', 'u1', [8, 10]);
    const touched = tenant.apply(sick, BEFORE_EVERYTHING);
    expect(touched.snapshots).toEqual(new Set(['a1', 'a2']));
    expect(touched.combinations.has('a1')).toBe(true);
    expect(tenant.availableEmployee('a1')?.unavailable).toEqual([span(8, 10)]);
    expect(tenant.availableEmployee('a2')?.unavailable).toEqual([]);
    expect(pairs(tenant)).toEqual({ a2: 'r1', a3: 'r1' });

    // its delete carries the state it had, so the employee is found without a lookup
    const back = tenant.apply(removed(sick), BEFORE_EVERYTHING);
    expect(back.snapshots).toEqual(new Set(['a1', 'a2']));
    expect(tenant.availableEmployee('a1')?.unavailable).toEqual([]);
    expect(pairs(tenant)).toEqual({ a1: 'r1', a2: 'r1', a3: 'r1' });
  });

  it('lists the unavailabilities the same way whatever order they came in, also when two start together', () => {
    const long = employeeUnavailability('e1', 'u1', [8, 10]);
    const short = employeeUnavailability('e1', 'u2', [8, 9]);
    const common = [homeBase('hb'), employee('e1'), availability('e1', 'a1', [6, 14])];
    const oneWay = tenantOf([...common, long, short]).availableEmployee('a1');
    const otherWay = tenantOf([...common, short, long]).availableEmployee('a1');
    expect(oneWay?.unavailable).toHaveLength(2);
    expect(otherWay).toEqual(oneWay);
  });

  it('keeps the combination when the unavailability lies outside the guaranteed working time', () => {
    // window [6, 15), guaranteed [7, 9)
    const flexible = availability('e1', 'a1', [6, 14], { latest_start: iso(7), min_duration: 'PT3H' });
    const tenant = tenantOf([homeBase('hb'), resource('r1'), employee('e1'), flexible]);
    expect(tenant.availableEmployee('a1')).toMatchObject({ window: span(6, 15), guaranteed: span(7, 9) });
    tenant.apply(employeeUnavailability('e1', 'u1', [12, 13]), BEFORE_EVERYTHING);
    expect(tenant.availableEmployee('a1')?.unavailable).toEqual([span(12, 13)]);
    expect(pairs(tenant)).toEqual({ a1: 'r1' });
    tenant.apply(employeeUnavailability('e1', 'u2', [8, 8.5]), BEFORE_EVERYTHING);
    expect(pairs(tenant)).toEqual({});
  });
});

describe('transport resources', () => {
  it('rule 6: an unavailability over the guaranteed working time deletes the combination; one elsewhere in the window keeps it', () => {
    const flexible = availability('e2', 'a2', [30, 38], { latest_start: iso(31), min_duration: 'PT3H' });
    const tenant = tenantOf([homeBase('hb'), resource('r1'), employee('e1'), availability('e1', 'a1', [6, 14]), employee('e2'), flexible]);
    expect(pairs(tenant)).toEqual({ a1: 'r1', a2: 'r1' });

    const outsideGuaranteed = tenant.apply(resourceUnavailability('r1', 'u1', [36, 38]), BEFORE_EVERYTHING);
    expect(outsideGuaranteed.snapshots).toEqual(new Set());
    expect(pairs(tenant)).toEqual({ a1: 'r1', a2: 'r1' });

    const overGuaranteed = tenant.apply(resourceUnavailability('r1', 'u2', [13, 20]), BEFORE_EVERYTHING);
    expect(overGuaranteed.combinations.has('a1')).toBe(true);
    expect(pairs(tenant)).toEqual({ a2: 'r1' });

    // a second truck: the shift that lost its combination is matched again
    const touched = tenant.apply(resource('r2'), BEFORE_EVERYTHING);
    expect(touched.combinations.has('a1')).toBe(true);
    expect(pairs(tenant)).toEqual({ a1: 'r2', a2: 'r1' });
  });

  it('an unavailability that comes before its transport resource still counts', () => {
    const tenant = tenantOf([
      homeBase('hb'),
      employee('e1'),
      availability('e1', 'a1', [6, 14]),
      resourceUnavailability('r1', 'u1', [10, 11]),
      resource('r1'),
    ]);
    expect(tenant.availableEmployee('a1')).toBeDefined();
    expect(pairs(tenant)).toEqual({});
    expect(pairs(tenantOf([homeBase('hb'), employee('e1'), availability('e1', 'a1', [6, 14]), resource('r1')]))).toEqual({ a1: 'r1' });
  });

  it('removing an unavailability lets the resource be matched again', () => {
    const broken = resourceUnavailability('r1', 'u1', [10, 11]);
    const tenant = tenantOf([homeBase('hb'), employee('e1'), availability('e1', 'a1', [6, 14]), resource('r1'), broken]);
    expect(pairs(tenant)).toEqual({});
    const touched = tenant.apply(removed(broken), BEFORE_EVERYTHING);
    expect(touched.combinations).toEqual(new Set(['a1']));
    expect(pairs(tenant)).toEqual({ a1: 'r1' });
  });

  it('a deleted transport resource loses its combinations, which find replacements', () => {
    const linked = resource('r1');
    const tenant = tenantOf([
      homeBase('hb'),
      linked,
      resource('r2'),
      resource('r3', { home_base: { business_id: 'elsewhere' } }),
      employee('e1', { linked_transport_resource: 'r1' }),
      availability('e1', 'a1', [6, 14]),
      availability('e1', 'a2', [30, 38]),
      employee('e2'),
      availability('e2', 'a3', [6, 14]),
    ]);
    expect(pairs(tenant)).toEqual({ a1: 'r1', a2: 'r1', a3: 'r2' });
    expect(tenant.combination('a1')?.linked).toBe(true);

    const touched = tenant.apply(removed(linked), BEFORE_EVERYTHING);
    expect(touched.snapshots).toEqual(new Set());
    expect(touched.combinations.has('a1')).toBe(true);
    expect(touched.combinations.has('a2')).toBe(true);
    // two overlapping shifts and one truck left at the home base: one of them waits
    const after = pairs(tenant);
    expect(after['a2']).toBe('r2');
    expect(Object.values(after).filter((one) => one === 'r3')).toEqual([]);
    expect([after['a1'], after['a3']].filter((one) => one === 'r2')).toHaveLength(1);
    expect(tenant.combination('a2')?.linked).toBe(false);
  });

  it("a resource update that breaks a requirement takes its combinations away; the combination's capabilities follow the resource", () => {
    const truck = resource('r1', { capabilities: ['crane'] });
    const tenant = tenantOf([homeBase('hb'), truck, employee('e1', { driver_skills: ['C'] }), availability('e1', 'a1', [6, 14])]);
    expect(tenant.combination('a1')?.capabilities).toEqual(['crane']);
    const touched = tenant.apply(updated(truck, { capabilities: ['crane', 'tail-lift'] }), BEFORE_EVERYTHING);
    expect(touched.combinations).toEqual(new Set(['a1']));
    expect(tenant.combination('a1')?.capabilities).toEqual(['crane', 'tail-lift']);
    tenant.apply(updated(truck, { requirements: ['CE'] }, 3), BEFORE_EVERYTHING);
    expect(pairs(tenant)).toEqual({});
  });
});

describe('rule 8: home base updates reach future shifts only', () => {
  const inputs = () => [
    homeBase('hb'),
    homeBase('hb2'),
    resource('r1'),
    employee('e1'),
    availability('e1', 'started', [6, 14]),
    availability('e1', 'future', [30, 38]),
    availability('e1', 'elsewhere', [54, 62], { start_location: { home_base: { business_id: 'hb2' } } }),
  ];
  const now = hour(8);

  it('gives the new address to a future shift and keeps the old one on a started shift', () => {
    const tenant = tenantOf(inputs(), now);
    expect(tenant.availableEmployee('started')?.address).toEqual(DEPOT);
    const touched = tenant.apply(updated(homeBase('hb'), { address: MOVED_DEPOT }), now);
    expect(touched.snapshots).toEqual(new Set(['started', 'future']));
    expect(tenant.availableEmployee('future')?.address).toEqual(MOVED_DEPOT);
    expect(tenant.availableEmployee('started')?.address).toEqual(DEPOT);
    expect(tenant.availableEmployee('elsewhere')?.address).toEqual(DEPOT);
    expect(tenant.combination('future')?.snapshot.address).toEqual(MOVED_DEPOT);
  });

  it('counts a shift starting exactly now as started', () => {
    const tenant = tenantOf(inputs(), hour(6));
    tenant.apply(updated(homeBase('hb'), { address: MOVED_DEPOT }), hour(6));
    expect(tenant.availableEmployee('started')?.address).toEqual(DEPOT);
  });

  it('keeps the old address on a started shift when something else rebuilds it', () => {
    const tenant = tenantOf(inputs(), now);
    tenant.apply(updated(homeBase('hb'), { address: MOVED_DEPOT }), now);
    tenant.apply(updated(employee('e1'), { skills: ['nl'] }), now);
    tenant.apply(employeeUnavailability('e1', 'u1', [12, 13]), now);
    expect(tenant.availableEmployee('started')).toMatchObject({ skills: ['nl'], unavailable: [span(12, 13)], address: DEPOT });
  });

  it('gives a started shift that moves to another home base that home base’s address', () => {
    const tenant = tenantOf(inputs(), now);
    tenant.apply(updated(homeBase('hb'), { address: MOVED_DEPOT }), now);
    tenant.apply(updated(availability('e1', 'started', [6, 14]), { start_location: { home_base: { business_id: 'hb2' } } }), now);
    const other = { ...DEPOT, name: 'Other' };
    expect(tenant.availableEmployee('started')).toMatchObject({ location: { kind: 'home-base', id: 'hb2' }, address: DEPOT });
    tenant.apply(updated(homeBase('hb2'), { address: other }), hour(70));
    expect(tenant.availableEmployee('started')?.address).toEqual(DEPOT);
    expect(tenant.availableEmployee('elsewhere')?.address).toEqual(DEPOT);
  });

  it('drops the address of future shifts when the home base is deleted', () => {
    const tenant = tenantOf(inputs(), now);
    tenant.apply(removed(homeBase('hb')), now);
    expect(tenant.availableEmployee('future')).not.toHaveProperty('address');
    expect(tenant.availableEmployee('started')?.address).toEqual(DEPOT);
  });
});

describe('deployments', () => {
  it('a planning-bound deployment freezes the combination it names, with its deployment id, and takes its resources', () => {
    const tenant = tenantOf(twoShifts(['r1', 'r2'], { a2: [10, 18] }));
    expect(pairs(tenant)).toEqual({ a1: 'r1', a2: 'r2' });
    const touched = tenant.apply(deployment('d1', 'e1', ['r2'], [7, 13], { planning_id: 'p1', availability_id: 'a1' }), BEFORE_EVERYTHING);
    expect(touched.snapshots.has('a1')).toBe(true);
    expect(touched.combinations.has('a1')).toBe(true);
    expect(touched.combinations.has('a2')).toBe(true);
    expect(tenant.combination('a1')).toMatchObject({ employeeId: 'e1', transportResourceIds: ['r2'], deploymentId: 'd1' });
    // a2 may not keep r2 while the frozen combination takes it over an overlapping span
    expect(pairs(tenant)).toEqual({ a1: 'r2 (d1)', a2: 'r1' });
  });

  it('an external deployment (no planning_id) freezes nothing', () => {
    const tenant = tenantOf([homeBase('hb'), resource('r1'), employee('e1'), availability('e1', 'a1', [6, 14])]);
    tenant.apply(deployment('d1', 'e1', ['r1'], [6, 14]), BEFORE_EVERYTHING);
    expect(tenant.combination('a1')).toMatchObject({ transportResourceIds: ['r1'] });
    expect(tenant.combination('a1')).not.toHaveProperty('deploymentId');
  });

  it('a deployment that moves from employee A to employee B rebuilds the shifts of both', () => {
    // both employees continue a journey after their last deployment: the deployment decides their start
    const before = deployment('d1', 'e1', ['r9'], [0, 4], { planning_id: 'p1' });
    const tenant = tenantOf([...twoShifts(['r9'], { shiftFields: { start_location: { at_last_end: true } } }), before]);
    expect(tenant.availableEmployee('a1')?.location).toEqual({ kind: 'journey', transportResourceIds: ['r9'] });
    expect(tenant.availableEmployee('a2')?.location).toEqual({ kind: 'journey', transportResourceIds: [] });
    expect(pairs(tenant)).toEqual({ a1: 'r9' });

    const touched = tenant.apply(updated(before, { employee_id: 'e2' }), BEFORE_EVERYTHING);
    expect(touched.snapshots).toEqual(new Set(['a1', 'a2']));
    expect(tenant.availableEmployee('a1')?.location).toEqual({ kind: 'journey', transportResourceIds: [] });
    expect(tenant.availableEmployee('a2')?.location).toEqual({ kind: 'journey', transportResourceIds: ['r9'] });
    expect(pairs(tenant)).toEqual({ a2: 'r9' });
  });

  it('a frozen combination that moves to another employee frees the first one’s shift and holds the other’s', () => {
    const frozen = deployment('d1', 'e1', ['r1'], [6, 14], { planning_id: 'p1' });
    const tenant = tenantOf([...twoShifts(['r1', 'r2']), frozen]);
    expect(pairs(tenant)).toEqual({ a1: 'r1 (d1)', a2: 'r2' });
    const touched = tenant.apply(updated(frozen, { employee_id: 'e2' }), BEFORE_EVERYTHING);
    expect(touched.snapshots).toEqual(new Set(['a1', 'a2']));
    expect(touched.combinations).toEqual(new Set(['a1', 'a2']));
    expect(pairs(tenant)).toEqual({ a1: 'r2', a2: 'r1 (d1)' });
  });

  it("touches a frozen combination when one of its transport resources changes, since its capabilities come from them", () => {
    const truck = resource('r1', { capabilities: ['crane'] });
    const frozen = deployment('d1', 'e1', ['r1'], [6, 14], { planning_id: 'p1', availability_id: 'a1' });
    const tenant = tenantOf([homeBase('hb'), employee('e1'), availability('e1', 'a1', [6, 14]), frozen]);
    // the deployment came before its transport resource: no capabilities known yet
    expect(tenant.combination('a1')).toMatchObject({ transportResourceIds: ['r1'], deploymentId: 'd1', capabilities: [] });
    const arrived = tenant.apply(truck, BEFORE_EVERYTHING);
    expect(tenant.combination('a1')?.capabilities).toEqual(['crane']);
    expect(arrived.combinations.has('a1')).toBe(true);
    const changed = tenant.apply(updated(truck, { capabilities: ['crane', 'cooling'] }), BEFORE_EVERYTHING);
    expect(tenant.combination('a1')?.capabilities).toEqual(['cooling', 'crane']);
    expect(changed.combinations.has('a1')).toBe(true);
  });

  it('shows the same frozen combination whatever order two deployments holding one shift came in', () => {
    const first = deployment('d1', 'e1', ['r1'], [6, 10], { planning_id: 'p1', availability_id: 'a1' });
    const second = deployment('d2', 'e1', ['r2'], [10, 14], { planning_id: 'p2', availability_id: 'a1' });
    const common = [homeBase('hb'), resource('r1'), resource('r2'), employee('e1'), availability('e1', 'a1', [6, 14])];
    const oneWay = TenantMatching.restore([...common, first, second], [], BEFORE_EVERYTHING);
    const otherWay = TenantMatching.restore([...common, second, first], [], BEFORE_EVERYTHING);
    expect(oneWay.combination('a1')?.deploymentId).toBeDefined();
    expect(otherWay.combination('a1')).toEqual(oneWay.combination('a1'));
    expect(tenantOf([...common, second, first]).combination('a1')).toEqual(tenantOf([...common, first, second]).combination('a1'));
  });

  it('deleting a planning-bound deployment frees its transport resource', () => {
    const frozen = deployment('d1', 'e1', ['r1'], [6, 14], { planning_id: 'p1' });
    const tenant = tenantOf([homeBase('hb'), resource('r1'), employee('e1'), frozen, employee('e2'), availability('e2', 'a2', [8, 12])]);
    expect(pairs(tenant)).toEqual({});
    const touched = tenant.apply(removed(frozen), BEFORE_EVERYTHING);
    expect(touched.combinations.has('a2')).toBe(true);
    expect(pairs(tenant)).toEqual({ a2: 'r1' });
  });

  it('deleting the deployment that froze a shift gives the shift back to the matcher', () => {
    const frozen = deployment('d1', 'e1', ['r1'], [6, 14], { planning_id: 'p1', availability_id: 'a1' });
    const tenant = tenantOf([homeBase('hb'), resource('r1'), employee('e1'), availability('e1', 'a1', [6, 14]), frozen]);
    expect(pairs(tenant)).toEqual({ a1: 'r1 (d1)' });
    tenant.apply(removed(frozen), BEFORE_EVERYTHING);
    expect(tenant.combination('a1')).toMatchObject({ transportResourceIds: ['r1'] });
    expect(tenant.combination('a1')).not.toHaveProperty('deploymentId');
  });
});

describe('restore', () => {
  const history = (): Input[] => {
    const r3 = resource('r3', { costs: { fixed: 5 } });
    const gone = resource('r4');
    const sick = employeeUnavailability('e2', 'u1', [7, 8]);
    const frozen = deployment('d1', 'e4', ['r1'], [30, 38], { planning_id: 'p1', availability_id: 'a5' });
    return [
      homeBase('hb'),
      resource('r1'),
      resource('r2', { requirements: ['C'] }),
      r3,
      gone,
      employee('e1', { linked_transport_resource: 'r3' }),
      availability('e1', 'a1', [6, 14], { mandatory: true }),
      availability('e1', 'a2', [30, 38]),
      employee('e2', { driver_skills: ['C'] }),
      availability('e2', 'a3', [6, 14]),
      sick,
      employee('e3'),
      availability('e3', 'a4', [8, 16]),
      availability('e3', 'a6', [32, 40], { mandatory: true }),
      employee('e4'),
      availability('e4', 'a5', [30, 38]),
      frozen,
      resourceUnavailability('r2', 'u2', [33, 34]),
      updated(r3, { costs: { fixed: 1 } }),
      removed(gone),
      removed(sick),
      updated(employee('e3'), { driver_skills: ['C'] }),
    ];
  };

  /** The history shuffled by a fixed rule, with older versions repeated: restore must not care about order. */
  const jumbled = (inputs: readonly Input[]) => {
    const odd = inputs.filter((_, index) => index % 2 === 1);
    const even = inputs.filter((_, index) => index % 2 === 0);
    return [...odd.reverse(), ...even, ...inputs.slice(0, 6)];
  };

  it('from stored combinations, reproduces what applying the inputs one by one gave, snapshots included', () => {
    const incremental = tenantOf(history());
    const restored = TenantMatching.restore(jumbled(history()), liveCombinations(incremental), BEFORE_EVERYTHING);
    expect(restored.availabilityIds().sort()).toEqual(incremental.availabilityIds().sort());
    expect(pairs(restored)).toEqual(pairs(incremental));
    expect(pairs(restored)['a5']).toBe('r1 (d1)');
    for (const id of incremental.availabilityIds()) {
      expect(restored.availableEmployee(id)).toEqual(incremental.availableEmployee(id));
      expect(restored.combination(id)).toEqual(incremental.combination(id));
    }
  });

  it('without stored combinations, comes to the same result whatever the order of the inputs', () => {
    const inOrder = TenantMatching.restore(history(), [], BEFORE_EVERYTHING);
    const reversed = TenantMatching.restore([...history()].reverse(), [], BEFORE_EVERYTHING);
    const shuffled = TenantMatching.restore(jumbled(history()), [], BEFORE_EVERYTHING);
    expect(Object.keys(pairs(inOrder)).length).toBeGreaterThan(3);
    expect(pairs(reversed)).toEqual(pairs(inOrder));
    expect(pairs(shuffled)).toEqual(pairs(inOrder));
  });

  it('keeps a stored combination that is still feasible rather than choosing again', () => {
    const inputs = [homeBase('hb'), resource('r1'), resource('r2'), employee('e1'), availability('e1', 'a1', [6, 14])];
    expect(pairs(TenantMatching.restore(inputs, [], BEFORE_EVERYTHING))).toEqual({ a1: 'r1' });
    const kept = TenantMatching.restore(inputs, [{ availabilityId: 'a1', employeeId: 'e1', transportResourceId: 'r2' }], BEFORE_EVERYTHING);
    expect(pairs(kept)).toEqual({ a1: 'r2' });
  });

  it('chooses again for a stored combination that no longer fits, or names a deleted resource', () => {
    const gone = resource('r9');
    const inputs = [
      homeBase('hb'),
      resource('r1'),
      resource('r2', { home_base: { business_id: 'other' } }),
      gone,
      removed(gone),
      employee('e1'),
      availability('e1', 'a1', [6, 14]),
      employee('e2'),
      availability('e2', 'a2', [30, 38]),
    ];
    const stored: Combination[] = [
      { availabilityId: 'a1', employeeId: 'e1', transportResourceId: 'r2' },
      { availabilityId: 'a2', employeeId: 'e2', transportResourceId: 'r9' },
      { availabilityId: 'unknown', employeeId: 'e9', transportResourceId: 'r1' },
    ];
    const restored = TenantMatching.restore(inputs, stored, BEFORE_EVERYTHING);
    expect(pairs(restored)).toEqual({ a1: 'r1', a2: 'r1' });
    expect(restored.combination('unknown')).toBeUndefined();
  });

  it('does not let a stored combination take a resource a frozen combination holds', () => {
    const inputs = [
      homeBase('hb'),
      resource('r1'),
      resource('r2'),
      employee('e1'),
      availability('e1', 'a1', [6, 14]),
      deployment('d1', 'e9', ['r1'], [10, 12], { planning_id: 'p1' }),
    ];
    const stored = [{ availabilityId: 'a1', employeeId: 'e1', transportResourceId: 'r1' }];
    const restored = TenantMatching.restore(inputs, stored, BEFORE_EVERYTHING);
    expect(pairs(restored)).toEqual({ a1: 'r2' });
  });

  it('rule 8 on takeover: a started shift keeps the address it had before the home base moved', () => {
    const now = hour(8);
    const inputs = [homeBase('hb'), resource('r1'), employee('e1'), availability('e1', 'started', [6, 14])];
    const incremental = tenantOf(inputs, now);
    const moved = updated(homeBase('hb'), { address: MOVED_DEPOT });
    incremental.apply(moved, now);
    expect(incremental.availableEmployee('started')?.address).toEqual(DEPOT);
    // the replica that takes the tenant over has the latest version of each input, and what was stored
    const stored = new Map([['started', keptAddressOf(incremental.availableEmployee('started')!)!]]);
    const restored = TenantMatching.restore([...inputs.slice(1), moved], liveCombinations(incremental), now, stored);
    expect(restored.availableEmployee('started')?.address).toEqual(DEPOT);
  });
});
