import { parseDuration } from './duration.js';

/** The times of an availability that bound its shift window. */
export interface ShiftTimes {
  readonly earliest_start: string;
  readonly latest_start?: string;
  readonly latest_stop?: string;
  readonly max_duration: string;
}

/**
 * An availability's shift window (DESIGN §6), in milliseconds since the epoch: from earliest_start to
 * latest_stop, or when that is absent to (latest_start, else earliest_start) + max_duration. Every
 * service and the board compute it here. A duration that cannot be read (refused on every write)
 * counts as zero, which leaves the window empty.
 */
export function shiftWindowOf(availability: ShiftTimes): { start: number; end: number } {
  const start = Date.parse(availability.earliest_start);
  const end =
    availability.latest_stop === undefined
      ? Date.parse(availability.latest_start ?? availability.earliest_start) + (parseDuration(availability.max_duration) ?? 0)
      : Date.parse(availability.latest_stop);
  return { start, end };
}
