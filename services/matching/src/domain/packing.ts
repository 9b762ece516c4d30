import type { AvailableEmployee } from './snapshot.js';

/**
 * The shifts one transport resource should take from `pool`, none overlapping: the most mandatory ones,
 * then the most in all (DESIGN §6, the first two terms of the objective). Weighted interval scheduling,
 * exact for one resource: a mandatory shift weighs more than all optional ones together.
 */
export function bestPacking(pool: readonly AvailableEmployee[]): AvailableEmployee[] {
  const mandatoryWeight = pool.length + 1;
  const byEnd = [...pool].sort((a, b) => a.window.end - b.window.end);
  // best[j]: the best packing of the first j shifts by end
  const best: { weight: number; chosen: AvailableEmployee[] }[] = [{ weight: 0, chosen: [] }];
  byEnd.forEach((shift, index) => {
    let compatible = index;
    while (compatible > 0 && (byEnd[compatible - 1] as AvailableEmployee).window.end > shift.window.start) compatible--;
    const without = best[index] as (typeof best)[number];
    const before = best[compatible] as (typeof best)[number];
    const weight = before.weight + (shift.mandatory ? mandatoryWeight : 1);
    best.push(weight > without.weight ? { weight, chosen: [...before.chosen, shift] } : without);
  });
  return (best[byEnd.length] as (typeof best)[number]).chosen;
}
