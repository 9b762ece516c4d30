/**
 * Runs `run` over the items at most `size` at a time, wave after wave; returns the results in order.
 * For single-document statements side by side: FerretDB gains little past a few, and a bound keeps a
 * large batch from opening as many requests at once.
 */
export async function inWaves<Item, Result>(items: readonly Item[], size: number, run: (item: Item) => Promise<Result>): Promise<Result[]> {
  const results: Result[] = [];
  for (let start = 0; start < items.length; start += size) results.push(...(await Promise.all(items.slice(start, start + size).map(run))));
  return results;
}
