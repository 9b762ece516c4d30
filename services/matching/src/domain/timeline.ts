import { overlaps, type Interval } from './interval.js';
import type { AvailableEmployee } from './snapshot.js';

/**
 * The shifts combined with one transport resource, by start. Their windows never overlap and are never
 * empty (the matcher keeps it so), so their ends rise with their starts, and what overlaps an interval
 * is found by binary search instead of a scan of every shift the resource ever had.
 */
export class Timeline {
  private readonly byStart: AvailableEmployee[] = [];

  get size(): number {
    return this.byStart.length;
  }

  [Symbol.iterator](): Iterator<AvailableEmployee> {
    return this.byStart[Symbol.iterator]();
  }

  add(shift: AvailableEmployee): void {
    this.byStart.splice(this.firstEndingAfter(shift.window.start), 0, shift);
  }

  remove(shift: AvailableEmployee): void {
    const index = this.byStart.indexOf(shift, this.firstEndingAfter(shift.window.start));
    if (index >= 0) this.byStart.splice(index, 1);
  }

  overlapping(interval: Interval): AvailableEmployee[] {
    const found: AvailableEmployee[] = [];
    for (let index = this.firstEndingAfter(interval.start); index < this.byStart.length; index++) {
      const shift = this.byStart[index] as AvailableEmployee;
      if (shift.window.start >= interval.end) break;
      if (overlaps(shift.window, interval)) found.push(shift);
    }
    return found;
  }

  /** The windows right before and right after an interval that overlaps none of them but `except`'s. */
  neighbours(interval: Interval, except: AvailableEmployee): Interval[] {
    const index = this.firstEndingAfter(interval.start);
    const after = this.byStart[index] === except ? this.byStart[index + 1] : this.byStart[index];
    return [this.byStart[index - 1], after].flatMap((shift) => (shift === undefined ? [] : [shift.window]));
  }

  /** The index of the first shift that ends after `instant` (the length when none does). */
  private firstEndingAfter(instant: number): number {
    let low = 0;
    let high = this.byStart.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.byStart[middle] as AvailableEmployee).window.end > instant) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
