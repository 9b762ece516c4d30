import { describe, expect, it } from 'vitest';
import { addressViolations, isCountryCode, withoutResolved } from '../src/index.js';

describe('isCountryCode', () => {
  it.each(['BE', 'NL', 'DE', 'FR', 'GB', 'US', 'AX', 'SS', 'BQ'])('knows %s', (code) => {
    expect(isCountryCode(code)).toBe(true);
  });

  it.each(['XX', 'UK', 'EU', 'ZZ', 'be', 'BEL', ''])('refuses %s', (code) => {
    expect(isCountryCode(code)).toBe(false);
  });
});

describe('addressViolations', () => {
  it('accepts address information without a geo point', () => {
    expect(addressViolations({ city: 'Gent', zip_code: '9000', country_code: 'BE' }, 'address')).toEqual([]);
  });

  it('accepts a geo point without address information', () => {
    expect(addressViolations({ geo_point: { latitude: 51, longitude: 3.7 } }, 'address')).toEqual([]);
  });

  it('names each missing part of the address information under the given path', () => {
    expect(addressViolations({ zip_code: '9000' }, 'start.location.address')).toEqual([
      { field: 'start.location.address.city', message: 'is required when no geo_point is given' },
      { field: 'start.location.address.country_code', message: 'is required when no geo_point is given' },
    ]);
  });

  it('refuses a country code that names no country, even with a geo point', () => {
    expect(addressViolations({ country_code: 'XX', geo_point: { latitude: 0, longitude: 0 } }, 'a')).toEqual([
      { field: 'a.country_code', message: 'must be an ISO 3166-1 alpha-2 country code' },
    ]);
  });
});

describe('withoutResolved', () => {
  it('drops the read-only resolved part of a geo point and keeps the rest', () => {
    const address = { name: 'Yard', geo_point: { latitude: 1, longitude: 2, resolved: { geocoded: true } } };
    expect(withoutResolved(address)).toEqual({ name: 'Yard', geo_point: { latitude: 1, longitude: 2 } });
  });

  it('leaves an address without a geo point as it is', () => {
    const address = { name: 'Yard', city: 'Gent' };
    expect(withoutResolved(address)).toBe(address);
  });
});
