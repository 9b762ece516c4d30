import { describe, expect, it } from 'vitest';
import { addDays, dayOf, rangeOf, ticksOf, zonedInstant } from '../src/timeline.ts';

const HOURS = 3_600_000;
const iso = (at: number) => new Date(at).toISOString();

describe("the board's days in a chosen time zone", () => {
  it("begins a day at the zone's midnight, not the browser's", () => {
    expect(iso(rangeOf('2030-01-07', 1, 'Europe/Amsterdam').from)).toBe('2030-01-06T23:00:00.000Z');
    expect(iso(rangeOf('2030-01-07', 1, 'America/New_York').from)).toBe('2030-01-07T05:00:00.000Z');
    expect(iso(rangeOf('2030-01-07', 1, 'Asia/Kolkata').from)).toBe('2030-01-06T18:30:00.000Z');
    expect(iso(rangeOf('2030-01-07', 1, 'UTC').from)).toBe('2030-01-07T00:00:00.000Z');
  });

  it('gives a daylight saving day its 23 or 25 hours, and a week its calendar days', () => {
    const spring = rangeOf('2026-03-29', 1, 'Europe/Amsterdam');
    expect((spring.until - spring.from) / HOURS).toBe(23);
    const autumn = rangeOf('2026-10-25', 1, 'Europe/Amsterdam');
    expect((autumn.until - autumn.from) / HOURS).toBe(25);
    const week = rangeOf('2026-03-23', 7, 'Europe/Amsterdam');
    expect([iso(week.from), iso(week.until)]).toEqual(['2026-03-22T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
  });

  it('starts a day whose midnight the clock skips at the end of the jump', () => {
    // Santiago moved its clocks from 00:00 to 01:00 on 2026-09-06
    expect(iso(zonedInstant('2026-09-06', 0, 'America/Santiago'))).toBe('2026-09-06T04:00:00.000Z');
    expect(dayOf(zonedInstant('2026-09-06', 0, 'America/Santiago'), 'America/Santiago')).toBe('2026-09-06');
  });

  it('ticks every three hours of the clock on a daylight saving day, and at each midnight of a week', () => {
    const spring = rangeOf('2026-03-29', 1, 'Europe/Amsterdam');
    expect(ticksOf(spring).map(iso)).toEqual(
      ['2026-03-28T23:00', '2026-03-29T01:00', '2026-03-29T04:00', '2026-03-29T07:00', '2026-03-29T10:00', '2026-03-29T13:00', '2026-03-29T16:00', '2026-03-29T19:00'].map(
        (at) => `${at}:00.000Z`,
      ),
    );
    const week = rangeOf('2026-10-19', 7, 'Europe/Amsterdam');
    expect(ticksOf(week).map((tick) => dayOf(tick, 'Europe/Amsterdam'))).toEqual(Array.from({ length: 7 }, (_, index) => addDays('2026-10-19', index)));
  });
});
