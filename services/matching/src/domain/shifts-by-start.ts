import { overlaps, type Interval } from './interval.js';
import { compareIds } from './preferences.js';
import type { AvailableEmployee } from './snapshot.js';

/**
 * Shifts whose windows may overlap (those waiting under one key), by start: what overlaps an interval
 * is found by binary search from the longest window back, instead of a scan of every shift held.
 */
export class ShiftsByStart {
  private readonly byStart: AvailableEmployee[] = [];
  /** The longest window ever held: a window that overlaps an interval starts at most this long before it. */
  private longest = 0;

  get size(): number {
    return this.byStart.length;
  }

  [Symbol.iterator](): Iterator<AvailableEmployee> {
    return this.byStart[Symbol.iterator]();
  }

  /** Adds the shift unless one of its id is held. */
  add(shift: AvailableEmployee): void {
    const index = this.firstNotBefore(shift.window.start, shift.availabilityId);
    if (this.byStart[index]?.availabilityId === shift.availabilityId) return;
    this.byStart.splice(index, 0, shift);
    this.longest = Math.max(this.longest, shift.window.end - shift.window.start);
  }

  remove(shift: AvailableEmployee): void {
    const index = this.firstNotBefore(shift.window.start, shift.availabilityId);
    if (this.byStart[index]?.availabilityId === shift.availabilityId) this.byStart.splice(index, 1);
  }

  overlapping(interval: Interval): AvailableEmployee[] {
    const found: AvailableEmployee[] = [];
    for (let index = this.firstNotBefore(interval.start - this.longest, ''); index < this.byStart.length; index++) {
      const shift = this.byStart[index] as AvailableEmployee;
      if (shift.window.start >= interval.end) break;
      if (overlaps(shift.window, interval)) found.push(shift);
    }
    return found;
  }

  /** The index of the first shift at or after (start, id) in the order held (the length when none is). */
  private firstNotBefore(start: number, id: string): number {
    let low = 0;
    let high = this.byStart.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const shift = this.byStart[middle] as AvailableEmployee;
      if (shift.window.start > start || (shift.window.start === start && compareIds(shift.availabilityId, id) >= 0)) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
