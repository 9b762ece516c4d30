import { describe, expect, it } from 'vitest';
import { decideEmployee } from '../src/domain/employee.js';

const depot = { name: 'Depot Gent', city: 'Gent', zip_code: '9000', country_code: 'BE' };

describe('decideEmployee', () => {
  it('accepts a start location with address information and keeps it', () => {
    expect(decideEmployee({ start_location: depot, skills: ['nl'] })).toEqual({
      ok: true,
      fields: { start_location: depot, skills: ['nl'] },
    });
  });

  it('accepts a home base reference instead of a start location', () => {
    expect(decideEmployee({ home_base: { business_id: 'hb-1' } })).toMatchObject({ ok: true });
  });

  it('requires one of start_location and home_base', () => {
    expect(decideEmployee({ skills: ['nl'] })).toEqual({
      ok: false,
      violations: [{ field: 'start_location', message: 'start_location or home_base is required' }],
    });
  });

  it('refuses start_location and home_base together', () => {
    expect(decideEmployee({ start_location: depot, home_base: { business_id: 'hb-1' } })).toEqual({
      ok: false,
      violations: [{ field: 'home_base', message: 'must not be given together with start_location' }],
    });
  });

  it('requires city, zip code and country without a geo point, naming each missing one', () => {
    expect(decideEmployee({ start_location: { name: 'Yard', city: 'Gent' } })).toEqual({
      ok: false,
      violations: [
        { field: 'start_location.zip_code', message: 'is required when no geo_point is given' },
        { field: 'start_location.country_code', message: 'is required when no geo_point is given' },
      ],
    });
  });

  it('accepts a geo point alone and drops its read-only resolved part', () => {
    const located = {
      name: 'Yard',
      geo_point: { latitude: 51.05, longitude: 3.72, resolved: { geocoded: true, address: 'x', precision: 3 } },
    };
    expect(decideEmployee({ start_location: located })).toEqual({
      ok: true,
      fields: { start_location: { name: 'Yard', geo_point: { latitude: 51.05, longitude: 3.72 } } },
    });
  });

  it('refuses a country code that names no country', () => {
    expect(decideEmployee({ start_location: { ...depot, country_code: 'XX' } })).toEqual({
      ok: false,
      violations: [{ field: 'start_location.country_code', message: 'must be an ISO 3166-1 alpha-2 country code' }],
    });
  });

  it('drops the read-only business_id and version sent back from a GET', () => {
    expect(decideEmployee({ business_id: 'e-1', version: 4, home_base: { business_id: 'hb' } })).toEqual({
      ok: true,
      fields: { home_base: { business_id: 'hb' } },
    });
  });

  it('rounds costs to 4 decimals', () => {
    expect(decideEmployee({ home_base: { business_id: 'hb' }, costs: { per_hour: 31.123456, fixed: 2 } })).toEqual({
      ok: true,
      fields: { home_base: { business_id: 'hb' }, costs: { per_hour: 31.1235, fixed: 2 } },
    });
  });
});
