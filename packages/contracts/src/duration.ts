/**
 * ISO 8601 durations in weeks, days, hours, minutes and seconds (DESIGN §8). Years and months have
 * no fixed length, so they are refused; a decimal fraction is allowed on the last component only.
 */
const DURATION = /^P(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;

const UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000] as const;

/**
 * Milliseconds of an ISO 8601 duration such as `PT8H`, `P1W2D` or `PT0.5S` (rounded to the
 * millisecond), or `undefined` when the text is not one we accept (`P1M`, `P1Y`, `P`, `PT`, `8h`).
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null || text.endsWith('T')) return undefined;
  const parts = match.slice(1, 6);
  const present = parts.flatMap((part, index) => (part === undefined ? [] : [index]));
  if (present.length === 0) return undefined;
  const last = present[present.length - 1];
  let total = 0;
  for (const index of present) {
    const part = (parts[index] as string).replace(',', '.');
    if (index !== last && part.includes('.')) return undefined;
    total += Number(part) * (UNIT_MS[index] as number);
  }
  const milliseconds = Math.round(total);
  return Number.isSafeInteger(milliseconds) ? milliseconds : undefined;
}
