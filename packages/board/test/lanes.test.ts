import { describe, expect, it } from 'vitest';
import { lanesOf } from '../src/lanes.ts';

describe('sub-rows of overlapping bars', () => {
  it('puts bars that overlap one below the other, and one that starts as another ends beside it', () => {
    // given out of order: 8–16, 6–14, 14–22, 7–9
    expect(lanesOf([
      { start: 8, end: 16 },
      { start: 6, end: 14 },
      { start: 14, end: 22 },
      { start: 7, end: 9 },
    ])).toEqual([2, 0, 0, 1]);
  });

  it('keeps bars that do not overlap in one row', () => {
    expect(lanesOf([
      { start: 0, end: 2 },
      { start: 2, end: 4 },
      { start: 5, end: 6 },
    ])).toEqual([0, 0, 0]);
  });
});
