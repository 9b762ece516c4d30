import { addressViolations, withoutResolved, type HomeBaseRef, type NamedAddress, type Violation } from '@rm/contracts';

export interface Located {
  start_location?: NamedAddress;
  home_base?: HomeBaseRef;
}

/** An employee or a transport resource has exactly one of start_location and home_base (field reference). */
export function locationViolations(value: Located): Violation[] {
  if (value.start_location !== undefined && value.home_base !== undefined) {
    return [{ field: 'home_base', message: 'must not be given together with start_location' }];
  }
  if (value.start_location === undefined && value.home_base === undefined) {
    return [{ field: 'start_location', message: 'start_location or home_base is required' }];
  }
  return value.start_location === undefined ? [] : addressViolations(value.start_location, 'start_location');
}

export function normalizeLocation<T extends Located>(value: T): T {
  return value.start_location === undefined ? value : { ...value, start_location: withoutResolved(value.start_location) };
}
