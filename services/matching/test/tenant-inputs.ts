import { INPUT_ENTITY, TenantMatching, type Input } from '../src/domain/tenant-matching.js';
import { hour } from './fixtures.js';

/* TenantMatching inputs as the engine makes them of events, for the re-solve's tests: times in hours from the fixtures' Monday. */

type Data = Record<string, unknown>;
type Hours = [number, number];

/** Before every shift: none has started. */
export const BEFORE_EVERYTHING = hour(-24);
const iso = (hours: number) => new Date(hour(hours)).toISOString();
const input = (entity: string, id: string, data: Data, version = 1): Input => ({ entity, id, version, deleted: false, data });
const at = (homeBase: string) => ({ home_base: { business_id: homeBase } });
export const homeBase = (id: string) => input(INPUT_ENTITY.homeBase, id, { business_id: id, name: id, address: { name: id } });
export const resource = (id: string, homeBaseId: string, fields: Data = {}) =>
  input(INPUT_ENTITY.transportResource, id, { business_id: id, type: 'TRUCK', inactive: false, ...at(homeBaseId), ...fields });
const employee = (id: string, homeBaseId: string, driverSkills: string[] = []) =>
  input(INPUT_ENTITY.employee, id, { business_id: id, ...at(homeBaseId), driver_skills: driverSkills });
export const availability = (employeeId: string, id: string, [from, to]: Hours, mandatory = false) =>
  input(INPUT_ENTITY.availability, `${employeeId}/${id}`, {
    id,
    employee_id: employeeId,
    earliest_start: iso(from),
    max_duration: `PT${to - from}H`,
    mandatory,
  });
export const deployment = (id: string, employeeId: string, resourceIds: string[], [from, to]: Hours, availabilityId: string) =>
  input(INPUT_ENTITY.deployment, id, {
    id,
    employee_id: employeeId,
    availability_id: availabilityId,
    planning_id: `planning-${id}`,
    transport_resource_ids: resourceIds,
    start: { at: iso(from), location: { home_base: { business_id: 'hb' } } },
    end: { at: iso(to) },
  });

/** A shift of its own employee, who drives what needs `skills`. */
export function shiftOf(prefix: string, homeBaseId: string, id: string, window: Hours, mandatory: boolean, skills: string[]): Input[] {
  return [employee(`e-${prefix}${id}`, homeBaseId, skills), availability(`e-${prefix}${id}`, `${prefix}${id}`, window, mandatory)];
}

/**
 * Where the incremental matcher falls short (found by search, then shrunk): only A-drivers may take r0. The
 * long mandatory s1 comes first and takes r0 for the day; s3 and s5 then share r1, and s2 and s4 wait. The
 * optimum gives r0 to s5 and s2, which frees r1 for s4 beside s3: one more matched, as many mandatory.
 */
export function behindCase(homeBaseId = 'hb', prefix = ''): Input[] {
  return [
    homeBase(homeBaseId),
    resource(`${prefix}r0`, homeBaseId, { requirements: ['A'] }),
    resource(`${prefix}r1`, homeBaseId),
    ...shiftOf(prefix, homeBaseId, 's1', [2, 9], true, ['A']),
    ...shiftOf(prefix, homeBaseId, 's2', [5, 8], true, ['A']),
    ...shiftOf(prefix, homeBaseId, 's3', [7, 9], true, []),
    ...shiftOf(prefix, homeBaseId, 's4', [4, 7], false, []),
    ...shiftOf(prefix, homeBaseId, 's5', [1, 5], true, ['A']),
  ];
}

/** A tenant with the inputs applied in order. */
export function tenantOf(inputs: readonly Input[], now = BEFORE_EVERYTHING): TenantMatching {
  const tenant = new TenantMatching();
  for (const one of inputs) tenant.apply(one, now);
  return tenant;
}

/** availability id → its transport resources joined with `+`, frozen ones marked with their deployment. */
export function pairs(tenant: TenantMatching): Record<string, string> {
  const found: Record<string, string> = {};
  for (const id of tenant.availabilityIds().sort()) {
    const combination = tenant.combination(id);
    if (combination === undefined) continue;
    const resources = combination.transportResourceIds.join('+');
    found[id] = combination.deploymentId === undefined ? resources : `${resources} (${combination.deploymentId})`;
  }
  return found;
}
