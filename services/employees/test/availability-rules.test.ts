import { describe, expect, it } from 'vitest';
import { availabilitySpan, decideAvailability, type AvailabilityInput } from '../src/domain/availability.js';

const base: AvailabilityInput = { earliest_start: '2026-03-02T06:00:00Z', max_duration: 'PT8H' };
const fieldsOf = (input: Partial<AvailabilityInput>) => {
  const decision = decideAvailability({ ...base, ...input });
  return decision.ok ? [] : decision.violations.map((violation) => violation.field);
};

describe('availabilitySpan', () => {
  it('is the shift window as dates, as the store keeps it', () => {
    expect(availabilitySpan({ ...base, latest_start: '2026-03-02T07:30:00Z' })).toEqual({
      start: new Date('2026-03-02T06:00:00Z'),
      end: new Date('2026-03-02T15:30:00Z'),
    });
  });
});

describe('latest_stop bounds: earliest_start + (min_duration or max_duration) … (latest_start or earliest_start) + max_duration', () => {
  it.each([
    ['at the lower bound with min_duration', { min_duration: 'PT4H', latest_stop: '2026-03-02T10:00:00Z' }, []],
    ['at the upper bound with latest_start', { latest_start: '2026-03-02T08:00:00Z', latest_stop: '2026-03-02T16:00:00Z' }, []],
    ['exactly earliest_start + max_duration without min_duration', { latest_stop: '2026-03-02T14:00:00Z' }, []],
    ['a millisecond below the lower bound', { min_duration: 'PT4H', latest_stop: '2026-03-02T09:59:59.999Z' }, ['latest_stop']],
    ['below earliest_start + max_duration without min_duration', { latest_start: '2026-03-02T08:00:00Z', latest_stop: '2026-03-02T13:00:00Z' }, ['latest_stop']],
    ['a millisecond above the upper bound', { latest_start: '2026-03-02T08:00:00Z', latest_stop: '2026-03-02T16:00:00.001Z' }, ['latest_stop']],
    ['above the upper bound in another offset', { min_duration: 'PT1H', latest_stop: '2026-03-02T15:30:00+01:00' }, ['latest_stop']],
  ])('%s', (_case, input, fields) => {
    expect(fieldsOf(input)).toEqual(fields);
  });
});

describe('durations and starts', () => {
  it.each([
    ['min_duration equal to max_duration', { min_duration: 'PT8H' }, []],
    ['min_duration longer than max_duration', { min_duration: 'PT9H' }, ['min_duration']],
    ['a zero min_duration', { min_duration: 'PT0S' }, ['min_duration']],
    ['a zero max_duration', { max_duration: 'PT0S' }, ['max_duration']],
    ['latest_start equal to earliest_start', { latest_start: '2026-03-02T06:00:00Z' }, []],
    ['latest_start before earliest_start', { latest_start: '2026-03-02T05:59:00Z' }, ['latest_start']],
  ])('%s', (_case, input, fields) => {
    expect(fieldsOf(input)).toEqual(fields);
  });
});

describe('locations', () => {
  const address = { name: 'Depot Gent', city: 'Gent', zip_code: '9000', country_code: 'BE' };
  it.each([
    ['an address', { start_location: { address } }, []],
    ['a home base', { start_location: { home_base: { business_id: 'hb-1' } } }, []],
    ['at_last_end', { start_location: { at_last_end: true } }, []],
    ['at_last_end false beside an address', { start_location: { address, at_last_end: false } }, []],
    ['the deprecated flat fields with a name', { start_location: { ...address } }, []],
    ['the deprecated home_base_id alone', { home_base_id: 'hb-1' }, []],
    ['an address and a home base', { start_location: { address, home_base: { business_id: 'hb-1' } } }, ['start_location']],
    ['an address and at_last_end', { start_location: { address, at_last_end: true } }, ['start_location']],
    ['the flat fields beside an address', { start_location: { address, city: 'Gent' } }, ['start_location']],
    ['the flat fields without a name', { start_location: { city: 'Gent', zip_code: '9000', country_code: 'BE' } }, ['start_location.name']],
    ['an address without address information or geo point', { start_location: { address: { name: 'Depot' } } }, [
      'start_location.address.city',
      'start_location.address.zip_code',
      'start_location.address.country_code',
    ]],
    ['home_base_id beside an ad-hoc address', { home_base_id: 'hb-1', start_location: { address } }, ['home_base_id']],
    ['an end address with a geo point only', { end_location: { address: { geo_point: { latitude: 51, longitude: 3.7 } } } }, []],
    ['an end home base and at_last_activity', { end_location: { home_base: { business_id: 'hb-1' }, at_last_activity: true } }, ['end_location']],
    ['an end address with an unknown country', { end_location: { address: { city: 'X', zip_code: '1', country_code: 'XX' } } }, ['end_location.address.country_code']],
  ])('%s', (_case, input, fields) => {
    expect(fieldsOf(input as Partial<AvailabilityInput>)).toEqual(fields);
  });
});

describe('the stored form', () => {
  it('has date-times in UTC, no read-only fields and no resolved geo information', () => {
    const decision = decideAvailability({
      ...base,
      earliest_start: '2026-03-02T07:00:00+01:00',
      latest_start: '2026-03-02T08:00:00.250+01:00',
      id: 'x',
      employee_id: 'y',
      version: 3,
      end_location: { address: { geo_point: { latitude: 51, longitude: 3.7, resolved: { geocoded: true } } } },
    });
    expect(decision).toStrictEqual({
      ok: true,
      availability: {
        earliest_start: '2026-03-02T06:00:00Z',
        latest_start: '2026-03-02T07:00:00.250Z',
        max_duration: 'PT8H',
        end_location: { address: { geo_point: { latitude: 51, longitude: 3.7 } } },
      },
    });
  });
});
