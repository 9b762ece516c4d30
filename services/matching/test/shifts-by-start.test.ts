import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { overlaps } from '../src/domain/interval.js';
import { ShiftsByStart } from '../src/domain/shifts-by-start.js';
import { shift, span } from './fixtures.js';

/** Windows that may overlap, nest or share a start, as the waiting shifts of one place do. */
const anyShifts = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 12 })), { maxLength: 16 })
  .map((windows) => windows.map(([start, length], index) => shift(`s${index}`, { window: [start, start + length] })));

const byStartThenId = (a: { window: { start: number }; availabilityId: string }, b: typeof a) =>
  a.window.start - b.window.start || (a.availabilityId < b.availabilityId ? -1 : 1);

describe('ShiftsByStart', () => {
  it('finds what overlaps an interval, as a scan would, whatever the order of adds, repeated adds and removes', () => {
    fc.assert(
      fc.property(anyShifts, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 10 }), (shifts, from, length) => {
        const held = new ShiftsByStart();
        for (const one of [...shifts].reverse()) held.add(one);
        for (const one of shifts) held.add(one);
        const removed = shifts.filter((_, index) => index % 3 === 0);
        for (const one of removed) held.remove(one);
        const kept = shifts.filter((one) => !removed.includes(one)).sort(byStartThenId);
        const interval = span(from, from + length);
        expect(held.overlapping(interval)).toEqual(kept.filter((one) => overlaps(one.window, interval)));
        expect([...held]).toEqual(kept);
        expect(held.size).toBe(kept.length);
      }),
      { numRuns: 300 },
    );
  });

  it('finds a long window that starts well before shorter ones and still overlaps the interval', () => {
    const long = shift('long', { window: [0, 20] });
    const short = shift('short', { window: [10, 11] });
    const held = new ShiftsByStart();
    held.add(short);
    held.add(long);
    expect(held.overlapping(span(15, 16))).toEqual([long]);
    expect(held.overlapping(span(10, 12))).toEqual([long, short]);
  });
});
