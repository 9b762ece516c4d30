import { WEEKDAYS, type WeekMoment } from '@rm/contracts';

/** Positions on a schedule's timeline are milliseconds from Monday 00:00 of its first template. */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;

/** A stretch `[start, end)` of the timeline, named by `label`; never empty, starting within the first period. */
export interface Span {
  label: string;
  start: number;
  end: number;
}

/** Milliseconds from Monday 00:00 to a moment of the week. */
export function weekMomentOffset(moment: WeekMoment): number {
  const hours = Number(moment.time.slice(0, 2));
  const minutes = Number(moment.time.slice(3, 5));
  return WEEKDAYS.indexOf(moment.day) * DAY + hours * HOUR + minutes * MINUTE;
}

/** How long after `from` the moment `to` next comes round: from zero up to, not including, a week. */
export function weekMomentsApart(from: WeekMoment, to: WeekMoment): number {
  return (weekMomentOffset(to) - weekMomentOffset(from) + WEEK) % WEEK;
}

/** The first of `offset`, `offset + WEEK`, `offset + 2·WEEK`, … that lies within `[from, to]`, if any. */
export function firstWeeklyOccurrence(offset: number, from: number, to: number): number | undefined {
  const occurrence = offset + Math.max(0, Math.ceil((from - offset) / WEEK)) * WEEK;
  return occurrence <= to ? occurrence : undefined;
}

/**
 * Two spans that overlap on a timeline repeating every `period`, `later` being the one whose
 * occurrence starts inside `earlier`; a span longer than the period overlaps its own next occurrence.
 */
export function firstCyclicOverlap(spans: readonly Span[], period: number): { earlier: Span; later: Span } | undefined {
  // In start order, a span that overlaps any span starting at or after it also overlaps its successor,
  // which starts no later: so successors suffice, the last one's being the first one period later.
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  for (const [position, earlier] of sorted.entries()) {
    const wraps = position === sorted.length - 1;
    const later = sorted[wraps ? 0 : position + 1] as Span;
    if (earlier.end > later.start + (wraps ? period : 0)) return { earlier, later };
  }
  return undefined;
}
