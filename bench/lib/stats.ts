/** Nearest-rank percentile of values sorted ascending; NaN for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function sortedAscending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Milliseconds elapsed since an `hrtime.bigint()` reading. */
export function msSince(start: bigint): number {
  return nsToMs(process.hrtime.bigint() - start);
}

export function nsToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}
