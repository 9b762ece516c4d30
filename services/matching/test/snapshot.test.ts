import type { Address } from '@rm/contracts';
import { describe, expect, it } from 'vitest';
import { frozenCombinationOf, holds, precedingFrozen } from '../src/domain/deployed.js';
import { buildAvailableEmployee, guaranteedTime, type SnapshotInputs } from '../src/domain/snapshot.js';
import { frozen, span } from './fixtures.js';

const at = (time: string) => Date.parse(`2026-03-02T${time}:00Z`);
const depot: Address = { name: 'Depot Gent', city: 'Gent', zip_code: '9000', country_code: 'BE' };

const inputs = (overrides: Partial<SnapshotInputs> = {}): SnapshotInputs => ({
  availability: { id: 'a-1', employee_id: 'e-1', earliest_start: '2026-03-02T06:00:00Z', max_duration: 'PT8H' },
  employee: { business_id: 'e-1', home_base: { business_id: 'hb-1' } },
  unavailabilities: [],
  homeBases: new Map([['hb-1', depot]]),
  ...overrides,
});
const withAvailability = (fields: Partial<SnapshotInputs['availability']>) =>
  buildAvailableEmployee(inputs({ availability: { ...inputs().availability, ...fields } }));

describe('the guaranteed working time [latest_start ?? earliest_start, earliest_start + (min_duration ?? max_duration))', () => {
  const base = { earliest_start: '2026-03-02T06:00:00Z', max_duration: 'PT8H' };

  it('is the whole shift when the start is fixed and only max_duration is given', () => {
    expect(guaranteedTime(base)).toEqual({ start: at('06:00'), end: at('14:00') });
  });

  it('starts at latest_start and ends min_duration after earliest_start', () => {
    const flexible = { ...base, latest_start: '2026-03-02T08:00:00Z', min_duration: 'PT4H' };
    expect(guaranteedTime(flexible)).toEqual({ start: at('08:00'), end: at('10:00') });
  });

  it('is null when the latest start is not before the guaranteed end', () => {
    expect(guaranteedTime({ ...base, latest_start: '2026-03-02T10:00:00Z', min_duration: 'PT4H' })).toBeNull();
    expect(guaranteedTime({ ...base, latest_start: '2026-03-02T11:00:00Z', min_duration: 'PT4H' })).toBeNull();
  });

  it('is null for a duration it cannot read, so that the shift is never matched', () => {
    expect(guaranteedTime({ ...base, max_duration: 'P1M' })).toBeNull();
  });
});

describe('buildAvailableEmployee', () => {
  it('copies ids, window, guaranteed time, skills and costs, with mandatory false by default', () => {
    const employee = { business_id: 'e-1', home_base: { business_id: 'hb-1' }, driver_skills: ['C'], skills: ['nl'], costs: { fixed: 10 } };
    const snapshot = buildAvailableEmployee(inputs({ employee: { ...employee, linked_transport_resource: 'truck-7' } }));
    expect(snapshot).toEqual({
      availabilityId: 'a-1',
      employeeId: 'e-1',
      window: { start: at('06:00'), end: at('14:00') },
      guaranteed: { start: at('06:00'), end: at('14:00') },
      location: { kind: 'home-base', id: 'hb-1' },
      mandatory: false,
      driverSkills: ['C'],
      skills: ['nl'],
      linkedTransportResource: 'truck-7',
      costs: { fixed: 10 },
      unavailable: [],
      address: depot,
    });
  });

  it('has no skills and no linked resource when the employee names none', () => {
    const snapshot = buildAvailableEmployee(inputs());
    expect(snapshot).toMatchObject({ driverSkills: [], skills: [] });
    expect(snapshot).not.toHaveProperty('linkedTransportResource');
  });

  it('keeps mandatory', () => {
    expect(withAvailability({ mandatory: true }).mandatory).toBe(true);
  });

  it('keeps the unavailabilities that overlap the window, by start, and not those that only touch it', () => {
    const snapshot = buildAvailableEmployee(
      inputs({
        unavailabilities: [
          { from: '2026-03-02T12:00:00Z', to: '2026-03-02T18:00:00Z' },
          { from: '2026-03-02T14:00:00Z', to: '2026-03-02T15:00:00Z' },
          { from: '2026-03-02T05:00:00Z', to: '2026-03-02T06:30:00+00:00' },
          { from: '2026-03-01T22:00:00Z', to: '2026-03-02T06:00:00Z' },
        ],
      }),
    );
    expect(snapshot.unavailable).toEqual([
      { start: at('05:00'), end: at('06:30') },
      { start: at('12:00'), end: at('18:00') },
    ]);
  });
});

describe('the start location key', () => {
  it("is the employee's home base, with a copy of its address", () => {
    expect(buildAvailableEmployee(inputs())).toMatchObject({ location: { kind: 'home-base', id: 'hb-1' }, address: depot });
  });

  it("is the name of the employee's ad-hoc start location", () => {
    const snapshot = buildAvailableEmployee(inputs({ employee: { business_id: 'e-1', start_location: { ...depot, name: 'Yard' } } }));
    expect(snapshot).toMatchObject({ location: { kind: 'ad-hoc', name: 'Yard' }, address: { ...depot, name: 'Yard' } });
  });

  it("is the availability's address, which overrides the employee's home base", () => {
    const snapshot = withAvailability({ start_location: { address: { ...depot, name: 'Port' } } });
    expect(snapshot.location).toEqual({ kind: 'ad-hoc', name: 'Port' });
  });

  it("is the availability's home base, which overrides the employee's ad-hoc location", () => {
    const snapshot = buildAvailableEmployee(
      inputs({
        employee: { business_id: 'e-1', start_location: { ...depot, name: 'Yard' } },
        availability: { ...inputs().availability, start_location: { home_base: { business_id: 'hb-1' } } },
      }),
    );
    expect(snapshot).toMatchObject({ location: { kind: 'home-base', id: 'hb-1' }, address: depot });
  });

  it('reads the deprecated flat address fields as an ad-hoc address', () => {
    const snapshot = withAvailability({ start_location: { name: 'Old depot', city: 'Aalst', zip_code: '9300', country_code: 'BE' } });
    expect(snapshot).toMatchObject({ location: { kind: 'ad-hoc', name: 'Old depot' }, address: { name: 'Old depot', city: 'Aalst' } });
  });

  it('reads the deprecated home_base_id as a home base', () => {
    expect(withAvailability({ home_base_id: 'hb-2' }).location).toEqual({ kind: 'home-base', id: 'hb-2' });
  });

  it('has no address when the home base is unknown', () => {
    expect(withAvailability({ home_base_id: 'hb-2' })).not.toHaveProperty('address');
  });

  it("continues a journey with the transport resources of the employee's preceding deployed combination", () => {
    const deployed = [frozen('d-old', 'e-1', ['t-old'], [-30, -20]), frozen('d-last', 'e-1', ['tractor', 'trailer'], [-10, 0])];
    const availability = { ...inputs().availability, start_location: { at_last_end: true } };
    const snapshot = buildAvailableEmployee(inputs({ availability, deployed }));
    expect(snapshot.location).toEqual({ kind: 'journey', transportResourceIds: ['tractor', 'trailer'] });
    expect(snapshot).not.toHaveProperty('address');
  });

  it('is a journey with no transport resource when nothing was deployed before', () => {
    expect(withAvailability({ start_location: { at_last_end: true } }).location).toEqual({ kind: 'journey', transportResourceIds: [] });
  });

  it('is none when neither the availability nor the employee has a start location', () => {
    expect(buildAvailableEmployee(inputs({ employee: { business_id: 'e-1' } })).location).toEqual({ kind: 'none' });
  });
});

describe('deployed combinations', () => {
  const deployment = {
    id: 'd-1',
    employee_id: 'e-1',
    transport_resource_ids: ['tractor', 'trailer'],
    start: { at: '2026-03-02T06:00:00Z', location: { home_base: { business_id: 'hb-1' } } },
    end: { at: '2026-03-02T14:00:00Z' },
  };

  it('freeze only planning-bound deployments', () => {
    expect(frozenCombinationOf(deployment)).toBeUndefined();
    expect(frozenCombinationOf({ ...deployment, planning_id: 'p-1', availability_id: 'a-1' })).toEqual({
      id: 'd-1',
      employeeId: 'e-1',
      availabilityId: 'a-1',
      transportResourceIds: ['tractor', 'trailer'],
      span: { start: at('06:00'), end: at('14:00') },
    });
  });

  it('hold the availability they name, or without one the overlapping availability of the same employee', () => {
    const shift = { availabilityId: 'a-1', employeeId: 'e-1', window: span(6, 14) };
    expect(holds(frozen('d', 'e-1', ['t'], [20, 22], 'a-1'), shift)).toBe(true);
    expect(holds(frozen('d', 'e-1', ['t'], [6, 14], 'a-2'), shift)).toBe(false);
    expect(holds(frozen('d', 'e-1', ['t'], [13, 15]), shift)).toBe(true);
    expect(holds(frozen('d', 'e-1', ['t'], [14, 15]), shift)).toBe(false);
    expect(holds(frozen('d', 'e-2', ['t'], [6, 14]), shift)).toBe(false);
  });

  it('precede a shift when they end at or before its start; the latest one counts, never its own', () => {
    const own = frozen('own', 'e-1', ['t0'], [0, 4], 'a-1');
    const all = [own, frozen('early', 'e-1', ['t1'], [0, 2]), frozen('late', 'e-1', ['t2'], [3, 6])];
    expect(precedingFrozen(all, 'a-1', span(6, 14).start)?.id).toBe('late');
    expect(precedingFrozen(all, 'a-1', span(5, 14).start)?.id).toBe('early');
    expect(precedingFrozen(all, 'a-1', span(1, 14).start)).toBeUndefined();
  });
});
