/** A stretch of time the board shows, `[from, until)` in epoch milliseconds: whole days on the clock of a time zone. */
export interface Range {
  from: number;
  until: number;
  /** How many days: one, or seven. */
  days: number;
  /** The IANA time zone (`Europe/Amsterdam`) its days begin in and its times are read in. */
  zone: string;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Intl formats are slow to make and a render formats hundreds of times: one of each per zone and style. */
const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(zone: string, style: 'wall' | 'time' | 'dayTime' | 'day'): Intl.DateTimeFormat {
  const key = `${style} ${zone}`;
  let format = formats.get(key);
  if (format === undefined) {
    const options: Intl.DateTimeFormatOptions = {
      // the wall clock as numbers, to compute offsets with (en-US: plain digits in every browser)
      wall: { hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const,
      time: { hour: '2-digit', minute: '2-digit' } as const,
      dayTime: { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' } as const,
      day: { weekday: 'short', day: 'numeric', month: 'short' } as const,
    }[style];
    format = new Intl.DateTimeFormat(style === 'wall' ? 'en-US' : undefined, { ...options, timeZone: zone });
    formats.set(key, format);
  }
  return format;
}

/** How far the clock of `zone` is ahead of UTC at an instant, in milliseconds (negative west of Greenwich). */
export function offsetAt(zone: string, at: number): number {
  const part = Object.fromEntries(formatOf(zone, 'wall').formatToParts(at).map(({ type, value }) => [type, Number(value)])) as Record<string, number>;
  const wall = Date.UTC(part['year']!, part['month']! - 1, part['day']!, part['hour']!, part['minute']!, part['second']!);
  return wall - (at - (((at % 1000) + 1000) % 1000));
}

/**
 * The first instant at or after `hour` o'clock of `day` (`2026-03-29`) on the clock of `zone`. Where the
 * clock jumps over that hour (daylight saving time), the end of the jump; where it passes it twice, the first.
 */
export function zonedInstant(day: string, hour: number, zone: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(year, month - 1, date, hour);
  // the zone's offsets around then: one, or two when its clock changes within a day of it
  const candidates = [wall - DAY, wall, wall + DAY].map((near) => wall - offsetAt(zone, near));
  return Math.min(...candidates.filter((at) => at + offsetAt(zone, at) >= wall));
}

/** The day (`yyyy-mm-dd`) an instant falls on, on the clock of `zone`. */
export function dayOf(at: number, zone: string): string {
  return new Date(at + offsetAt(zone, at)).toISOString().slice(0, 10);
}

/** The day `count` days after `day`, by the calendar (not by 24 hours: a daylight saving day has 23 or 25). */
export function addDays(day: string, count: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date + count)).toISOString().slice(0, 10);
}

/** From midnight of `day` (`2026-12-07`) in `zone`, one day or seven: the planner thinks in the depot's time zone. */
export function rangeOf(day: string, days: number, zone: string): Range {
  return { from: zonedInstant(day, 0, zone), until: zonedInstant(addDays(day, days), 0, zone), days, zone };
}

/** Where a span sits on a track of the range, in percent; undefined when it lies outside. */
export function placement({ from, until }: Pick<Range, 'from' | 'until'>, start: number, end: number): { left: number; width: number } | undefined {
  const clippedStart = Math.max(start, from);
  const clippedEnd = Math.min(end, until);
  if (clippedEnd <= clippedStart) return undefined;
  const total = until - from;
  return { left: ((clippedStart - from) / total) * 100, width: ((clippedEnd - clippedStart) / total) * 100 };
}

/** The ticks of the axis: every three hours of the clock for a day, every midnight for longer. */
export function ticksOf(range: Range): number[] {
  const first = dayOf(range.from, range.zone);
  if (range.days === 1) return [0, 3, 6, 9, 12, 15, 18, 21].map((hour) => zonedInstant(first, hour, range.zone));
  return Array.from({ length: range.days }, (_, index) => zonedInstant(addDays(first, index), 0, range.zone));
}

export const formatTime = (at: number | string, zone: string) => formatOf(zone, 'time').format(new Date(at));
export const formatDayTime = (at: number | string, zone: string) => formatOf(zone, 'dayTime').format(new Date(at));
export const formatDay = (at: number | string, zone: string) => formatOf(zone, 'day').format(new Date(at));

/** `06:00–14:00` in the range's zone, with the day when the board shows more than one. */
export function formatSpan(range: Range, start: number | string, end: number | string): string {
  const format = range.days > 1 ? formatDayTime : formatTime;
  return `${format(start, range.zone)}–${format(end, range.zone)}`;
}

/** Today as `yyyy-mm-dd` in `zone`. */
export function today(zone: string): string {
  return dayOf(Date.now(), zone);
}
