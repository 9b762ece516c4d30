import { describe, expect, it } from 'vitest';
import { shiftWindowOf } from '../src/shift-window.js';

const at = (time: string) => Date.parse(`2026-03-02T${time}:00Z`);
const base = { earliest_start: '2026-03-02T06:00:00Z', max_duration: 'PT8H' };

describe('the shift window [earliest_start, calculated latest_stop) (DESIGN §6)', () => {
  it('ends max_duration after earliest_start without latest_start or latest_stop', () => {
    expect(shiftWindowOf(base)).toEqual({ start: at('06:00'), end: at('14:00') });
  });

  it('ends max_duration after latest_start when the start may move', () => {
    expect(shiftWindowOf({ ...base, latest_start: '2026-03-02T07:30:00Z' })).toEqual({ start: at('06:00'), end: at('15:30') });
  });

  it('ends at latest_stop when there is one, whatever the durations', () => {
    expect(shiftWindowOf({ ...base, latest_start: '2026-03-02T07:00:00Z', latest_stop: '2026-03-02T12:00:00Z' }).end).toBe(at('12:00'));
  });

  it('counts weeks, days and fractions of the last component of a duration', () => {
    expect(shiftWindowOf({ ...base, max_duration: 'PT7.5H' }).end).toBe(at('13:30'));
    expect(shiftWindowOf({ ...base, max_duration: 'P1DT0.5H' }).end).toBe(Date.parse('2026-03-03T06:30:00Z'));
    expect(shiftWindowOf({ ...base, max_duration: 'P1W' }).end).toBe(Date.parse('2026-03-09T06:00:00Z'));
  });

  it('is empty when the duration cannot be read (every write refuses it)', () => {
    expect(shiftWindowOf({ ...base, max_duration: 'P1M' })).toEqual({ start: at('06:00'), end: at('06:00') });
  });
});
