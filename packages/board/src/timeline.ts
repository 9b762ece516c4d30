/** A stretch of time the board shows, `[from, until)` in epoch milliseconds. */
export interface Range {
  from: number;
  until: number;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** From local midnight of `day` (`2026-12-07`), one day or seven: the planner thinks in the browser's time zone. */
export function rangeOf(day: string, days: number): Range {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return { from: new Date(year, month - 1, date).getTime(), until: new Date(year, month - 1, date + days).getTime() };
}

/** Where a span sits on a track of the range, in percent; undefined when it lies outside. */
export function placement({ from, until }: Range, start: number, end: number): { left: number; width: number } | undefined {
  const clippedStart = Math.max(start, from);
  const clippedEnd = Math.min(end, until);
  if (clippedEnd <= clippedStart) return undefined;
  const total = until - from;
  return { left: ((clippedStart - from) / total) * 100, width: ((clippedEnd - clippedStart) / total) * 100 };
}

/** The ticks of the axis: every three hours for a day, every local midnight for longer. */
export function ticksOf(range: Range): number[] {
  const ticks: number[] = [];
  if (range.until - range.from <= DAY) {
    for (let tick = range.from; tick < range.until; tick += 3 * HOUR) ticks.push(tick);
    return ticks;
  }
  for (const day = new Date(range.from); day.getTime() < range.until; day.setDate(day.getDate() + 1)) ticks.push(day.getTime());
  return ticks;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayTimeFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });

export const formatTime = (at: number | string) => timeFormat.format(new Date(at));
export const formatDayTime = (at: number | string) => dayTimeFormat.format(new Date(at));
export const formatDay = (at: number | string) => dayFormat.format(new Date(at));

/** `06:00–14:00`, with the day when the board shows more than one. */
export function formatSpan(range: Range, start: number | string, end: number | string): string {
  const format = range.until - range.from > DAY ? formatDayTime : formatTime;
  return `${format(start)}–${format(end)}`;
}

/** Today as `yyyy-mm-dd` in the browser's time zone. */
export function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}
