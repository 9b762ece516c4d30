import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { overlaps } from '../src/domain/interval.js';
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

describe('Timeline', () => {
  it('finds what overlaps an interval, as a scan would, whatever the order of adds and removes', () => {
    fc.assert(
      fc.property(disjointShifts, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 10 }), (shifts, from, length) => {
        const timeline = new Timeline();
        for (const one of [...shifts].reverse()) timeline.add(one);
        const removed = shifts.filter((_, index) => index % 3 === 0);
        for (const one of removed) timeline.remove(one);
        const kept = shifts.filter((one) => !removed.includes(one));
        const interval = span(from, from + length);
        expect(timeline.overlapping(interval)).toEqual(kept.filter((one) => overlaps(one.window, interval)));
        expect([...timeline]).toEqual(kept);
      }),
      { numRuns: 200 },
    );
  });

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
