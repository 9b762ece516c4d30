import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { overlaps } from '../src/domain/interval.js';
import { ShiftsByStart } from '../src/domain/shifts-by-start.js';
import type { AvailableEmployee } from '../src/domain/snapshot.js';
import { Timeline } from '../src/domain/timeline.js';
import { shift, span } from './fixtures.js';

/** Back-to-back or spaced windows that never overlap, as the matcher keeps them on one resource. */
const disjointShifts = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 5 })), { maxLength: 12 })
  .map((steps) => {
    let at = 0;
    return steps.map(([gap, length], index) => {
      const window: [number, number] = [at + gap, at + gap + length];
      at = window[1];
      return shift(`s${index}`, { window });
    });
  });

/** Windows that may overlap, nest or share a start, as the waiting shifts of one place do. */
const anyShifts = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 12 })), { maxLength: 16 })
  .map((windows) => windows.map(([start, length], index) => shift(`s${index}`, { window: [start, start + length] })));

const byStartThenId = (a: AvailableEmployee, b: AvailableEmployee) =>
  a.window.start - b.window.start || (a.availabilityId < b.availabilityId ? -1 : 1);

/** The matcher's indexes of shifts by start: a resource's timeline, and the shifts waiting under a key. */
describe.each([
  { name: 'Timeline', make: () => new Timeline(), shifts: disjointShifts },
  { name: 'ShiftsByStart', make: () => new ShiftsByStart(), shifts: anyShifts },
])('$name', ({ make, shifts }) => {
  it('finds what overlaps an interval, as a scan would, whatever the order of adds and removes', () => {
    fc.assert(
      fc.property(shifts, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 10 }), (all, from, length) => {
        const held = make();
        for (const one of [...all].reverse()) held.add(one);
        const removed = all.filter((_, index) => index % 3 === 0);
        for (const one of removed) held.remove(one);
        const kept = all.filter((one) => !removed.includes(one)).sort(byStartThenId);
        const interval = span(from, from + length);
        expect(held.overlapping(interval)).toEqual(kept.filter((one) => overlaps(one.window, interval)));
        expect([...held]).toEqual(kept);
        expect(held.size).toBe(kept.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Timeline', () => {
  it('gives the windows around a gap, skipping the shift that asks when it is there itself', () => {
    const early = shift('early', { window: [0, 2] });
    const middle = shift('middle', { window: [4, 6] });
    const late = shift('late', { window: [8, 9] });
    const timeline = new Timeline();
    for (const one of [late, early, middle]) timeline.add(one);
    expect(timeline.neighbours(span(2, 4), shift('newcomer', { window: [2, 4] }))).toEqual([early.window, middle.window]);
    expect(timeline.neighbours(middle.window, middle)).toEqual([early.window, late.window]);
    expect(timeline.neighbours(span(10, 12), shift('newcomer', { window: [10, 12] }))).toEqual([late.window]);
  });
});

describe('ShiftsByStart', () => {
  it('holds a shift added twice once', () => {
    const one = shift('one', { window: [2, 4] });
    const held = new ShiftsByStart();
    held.add(one);
    held.add(one);
    expect([...held]).toEqual([one]);
    held.remove(one);
    expect(held.size).toBe(0);
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
