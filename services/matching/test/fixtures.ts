import type { FrozenCombination } from '../src/domain/deployed.js';
import type { ResourceLocation, TransportResourceView } from '../src/domain/feasibility.js';
import type { Interval } from '../src/domain/interval.js';
import type { AvailableEmployee, StartKey } from '../src/domain/snapshot.js';

/** Test data in hours from a fixed Monday 00:00 UTC, so that cases read as a timetable. */
export const MONDAY = Date.parse('2026-03-02T00:00:00Z');
export const hour = (hours: number) => MONDAY + hours * 3_600_000;
export const span = (from: number, to: number): Interval => ({ start: hour(from), end: hour(to) });

export const atHomeBase = (id: string): StartKey & ResourceLocation => ({ kind: 'home-base', id });
export const atPlace = (name: string): StartKey & ResourceLocation => ({ kind: 'ad-hoc', name });

export interface ShiftOptions {
  employee?: string;
  /** The window, in hours; the guaranteed time is the whole window unless given. */
  window?: [number, number];
  guaranteed?: [number, number] | null;
  location?: StartKey;
  mandatory?: boolean;
  driverSkills?: string[];
  skills?: string[];
  linked?: string;
  unavailable?: [number, number][];
}

/** An AvailableEmployee at home base `hb` from 6:00 to 14:00 unless told otherwise. */
export function shift(id: string, options: ShiftOptions = {}): AvailableEmployee {
  const [from, to] = options.window ?? [6, 14];
  const guaranteed: [number, number] | null = options.guaranteed === undefined ? [from, to] : options.guaranteed;
  return {
    availabilityId: id,
    employeeId: options.employee ?? `employee-of-${id}`,
    window: span(from, to),
    guaranteed: guaranteed === null ? null : span(...guaranteed),
    location: options.location ?? atHomeBase('hb'),
    mandatory: options.mandatory ?? false,
    driverSkills: options.driverSkills ?? [],
    skills: options.skills ?? [],
    ...(options.linked === undefined ? {} : { linkedTransportResource: options.linked }),
    unavailable: (options.unavailable ?? []).map(([start, end]) => span(start, end)),
  };
}

export interface ResourceOptions {
  type?: TransportResourceView['type'];
  inactive?: boolean;
  location?: ResourceLocation;
  requirements?: string[];
  requiredCapabilities?: string[];
  capabilities?: string[];
  skilledCapabilities?: string[];
  cantDo?: string[];
  fixedCost?: number;
  unavailable?: [number, number][];
}

/** An active TRUCK at home base `hb` unless told otherwise. */
export function truck(id: string, options: ResourceOptions = {}): TransportResourceView {
  return {
    id,
    type: options.type ?? 'TRUCK',
    inactive: options.inactive ?? false,
    location: options.location ?? atHomeBase('hb'),
    requirements: options.requirements ?? [],
    requiredCapabilities: options.requiredCapabilities ?? [],
    capabilities: options.capabilities ?? [],
    skilledCapabilities: options.skilledCapabilities ?? [],
    cantDo: options.cantDo ?? [],
    ...(options.fixedCost === undefined ? {} : { costs: { fixed: options.fixedCost } }),
    unavailable: (options.unavailable ?? []).map(([start, end]) => span(start, end)),
  };
}

export function frozen(
  id: string,
  employeeId: string,
  transportResourceIds: string[],
  hours: [number, number],
  availabilityId?: string,
): FrozenCombination {
  return { id, employeeId, transportResourceIds, span: span(...hours), ...(availabilityId === undefined ? {} : { availabilityId }) };
}
