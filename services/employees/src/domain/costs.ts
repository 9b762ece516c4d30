import type { Costs } from '@rm/contracts';

/** Costs keep 4 decimals (spec: cost rounding precision of 4). */
export function roundCosts(costs: Costs): Costs {
  const rounded: Costs = {};
  for (const [name, value] of Object.entries(costs) as [keyof Costs, number | undefined][]) {
    if (value !== undefined) rounded[name] = roundTo4(value);
  }
  return rounded;
}

function roundTo4(value: number): number {
  // EPSILON nudges halves such as 1.00005 (stored as 1.0000499…) up, as a person would round them.
  return Math.round((value + Number.EPSILON) * 10_000) / 10_000;
}
