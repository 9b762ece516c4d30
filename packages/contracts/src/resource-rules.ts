import type { Violation } from './common.js';
import { addressViolations, withoutResolved } from './address-rules.js';
import type { Costs, HomeBaseRef, NamedAddress } from './shapes.js';

/** Rules that employees and transport resources share (field reference: Location, Costs). */

export interface Located {
  start_location?: NamedAddress;
  home_base?: HomeBaseRef;
}

/** An employee or a transport resource has exactly one of start_location and home_base. */
export function locationViolations(value: Located): Violation[] {
  if (value.start_location !== undefined && value.home_base !== undefined) {
    return [{ field: 'home_base', message: 'must not be given together with start_location' }];
  }
  if (value.start_location === undefined && value.home_base === undefined) {
    return [{ field: 'start_location', message: 'start_location or home_base is required' }];
  }
  return value.start_location === undefined ? [] : addressViolations(value.start_location, 'start_location');
}

/** The stored form of a location: resolved geo information is left to the resolver. */
export function normalizeLocation<T extends Located>(value: T): T {
  return value.start_location === undefined ? value : { ...value, start_location: withoutResolved(value.start_location) };
}

/** Costs keep 4 decimals (spec: cost rounding precision of 4). */
export function roundCosts(costs: Costs): Costs {
  const rounded: Costs = {};
  for (const [name, value] of Object.entries(costs) as [keyof Costs, number | undefined][]) {
    if (value !== undefined) rounded[name] = roundTo4(value);
  }
  return rounded;
}

function roundTo4(value: number): number {
  // EPSILON nudges halves such as 1.00005 (stored as 1.0000499…) up, as a person would round them.
  return Math.round((value + Number.EPSILON) * 10_000) / 10_000;
}
