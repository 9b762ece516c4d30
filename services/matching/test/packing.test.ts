import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { overlaps } from '../src/domain/interval.js';
import { bestPacking } from '../src/domain/packing.js';
import type { AvailableEmployee } from '../src/domain/snapshot.js';
import { shift } from './fixtures.js';

const pool = fc
  .uniqueArray(
    fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
      start: fc.integer({ min: 0, max: 12 }),
      length: fc.integer({ min: 1, max: 6 }),
      mandatory: fc.boolean(),
    }),
    { maxLength: 8, selector: (one) => one.id },
  )
  .map((all) => all.map(({ id, start, length, mandatory }) => shift(id, { window: [start, start + length], mandatory })));

const score = (shifts: readonly AvailableEmployee[]): [number, number] => [shifts.filter((one) => one.mandatory).length, shifts.length];
const disjoint = (shifts: readonly AvailableEmployee[]) =>
  shifts.every((one, index) => shifts.slice(index + 1).every((other) => !overlaps(one.window, other.window)));

/** Every subset, for pools small enough to try them all. */
function bestByBruteForce(shifts: readonly AvailableEmployee[]): [number, number] {
  let best: [number, number] = [0, 0];
  for (let mask = 0; mask < 1 << shifts.length; mask++) {
    const chosen = shifts.filter((_, index) => (mask & (1 << index)) !== 0);
    const [mandatory, all] = score(chosen);
    if (disjoint(chosen) && (mandatory > best[0] || (mandatory === best[0] && all > best[1]))) best = [mandatory, all];
  }
  return best;
}

describe('bestPacking', () => {
  it('keeps the mandatory shift over two optional ones that overlap it', () => {
    const pool = [shift('o1', { window: [0, 4] }), shift('m', { window: [2, 8], mandatory: true }), shift('o2', { window: [6, 9] })];
    expect(bestPacking(pool).map((one) => one.availabilityId)).toEqual(['m']);
  });

  it('finds the most mandatory shifts, then the most shifts, with none overlapping', () => {
    fc.assert(
      fc.property(pool, (shifts) => {
        const chosen = bestPacking(shifts);
        expect(disjoint(chosen)).toBe(true);
        expect(score(chosen)).toEqual(bestByBruteForce(shifts));
      }),
      { numRuns: 200 },
    );
  });
});
