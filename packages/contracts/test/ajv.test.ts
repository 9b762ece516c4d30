import { describe, expect, it } from 'vitest';
import { createAjv, parseDuration } from '../src/index.js';

describe('parseDuration', () => {
  it.each([
    ['PT0.5S', 500],
    ['P1W2D', 9 * 86_400_000],
    ['PT8H', 8 * 3_600_000],
    ['P1DT2H30M', 86_400_000 + 2.5 * 3_600_000],
    ['PT1M', 60_000],
    ['PT1.5H', 5_400_000],
    ['P0D', 0],
  ])('reads %s as %i ms', (text, milliseconds) => {
    expect(parseDuration(text)).toBe(milliseconds);
  });

  it.each(['P1M', 'P1Y', 'P', 'PT', '8h', 'pt8h', 'P1DT', 'PT1.5H30M', '-PT1H', 'P1D2W', ''])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('createAjv formats', () => {
  const ajv = createAjv({ coerceTypes: false });
  const check = (format: string, value: string) => ajv.validate({ type: 'string', format }, value);

  it('accepts our durations and refuses years, months and empty ones', () => {
    for (const value of ['PT0.5S', 'P1W2D', 'PT8H', 'P1DT2H30M']) expect(check('duration', value), value).toBe(true);
    for (const value of ['P1M', 'P1Y', 'P', 'PT', '8h']) expect(check('duration', value), value).toBe(false);
  });

  it('requires an offset on date-times that JavaScript can read', () => {
    expect(check('date-time', '2024-05-01T08:00:00Z')).toBe(true);
    expect(check('date-time', '2024-05-01T08:00:00.250+02:00')).toBe(true);
    expect(check('date-time', '2024-05-01T08:00:00')).toBe(false);
    expect(check('date-time', '2024-05-01T08:00:00+01')).toBe(false);
    expect(check('date-time', '2024-02-30T08:00:00Z')).toBe(false);
  });

  it('refuses date-times whose UTC instant falls outside the years 0000 to 9999, which UTC cannot state', () => {
    expect(check('date-time', '9999-12-31T23:59:59Z')).toBe(true);
    expect(check('date-time', '0000-01-01T00:30:00-01:00')).toBe(true);
    expect(check('date-time', '9999-12-31T23:59:59-01:00')).toBe(false);
    expect(check('date-time', '0000-01-01T00:30:00+01:00')).toBe(false);
  });

  it('checks uuids without the urn prefix, and business ids', () => {
    expect(check('uuid', '0190b3c4-7a1e-7c2f-9d4e-123456789abc')).toBe(true);
    expect(check('uuid', 'urn:uuid:0190b3c4-7a1e-7c2f-9d4e-123456789abc')).toBe(false);
    expect(check('business-id', 'EMP-1.a~_')).toBe(true);
    expect(check('business-id', 'emp 1')).toBe(false);
    expect(check('business-id', 'x'.repeat(513))).toBe(false);
  });
});
