/** A half-open span of time `[start, end)` in epoch milliseconds (DESIGN §3: spans that only touch do not overlap). */
export interface Interval {
  readonly start: number;
  readonly end: number;
}

/** The interval of two ISO date-times (`from`/`to` of an unavailability, `start`/`end` of a deployment). */
export function intervalOf(from: string, to: string): Interval {
  return { start: Date.parse(from), end: Date.parse(to) };
}

/** Whether two intervals share an instant; an empty interval shares none. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.start < a.end && b.start < b.end && a.start < b.end && b.start < a.end;
}

export function overlapsAny(interval: Interval, others: readonly Interval[]): boolean {
  return others.some((other) => overlaps(interval, other));
}

/** The smallest interval that holds both. */
export function hull(a: Interval, b: Interval): Interval {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}
