import { describeWriteRules } from '@rm/testkit/suites/write-rules';
import { describe, expect, it } from 'vitest';
import { BASE, homeBaseBody, startHomeBases } from './helpers.js';

type Body = Record<string, unknown>;

const { accepted, violationsOf, withoutField } = describeWriteRules({
  start: startHomeBases,
  path: `${BASE}/home-base`,
  idParameter: 'home_base_id',
  body: () => homeBaseBody(),
  everyRuleBroken: { body: { ...homeBaseBody({ name: '', plan_group: '' }), colour: 'red' }, fields: ['colour', 'name', 'plan_group'] },
});

const withAddress = (address: Body) => homeBaseBody({ address });
const geoPoint = (latitude: unknown, longitude: unknown) => withAddress({ geo_point: { latitude, longitude } });

describe('name', () => {
  it('accepts 1 to 200 characters', async () => {
    expect(await accepted(homeBaseBody({ name: 'N' }))).toMatchObject({ name: 'N' });
    expect(await accepted(homeBaseBody({ name: 'N'.repeat(200) }))).toMatchObject({ name: 'N'.repeat(200) });
  });

  it('is required', async () => {
    expect(await violationsOf(withoutField('name'))).toEqual([{ field: 'name', message: 'is required' }]);
  });

  it('refuses an empty name, one over 200 characters and one that is not a string', async () => {
    expect(await violationsOf(homeBaseBody({ name: '' }))).toEqual([{ field: 'name', message: 'must not be empty' }]);
    expect(await violationsOf(homeBaseBody({ name: 'N'.repeat(201) }))).toEqual([{ field: 'name', message: 'must be at most 200 characters long' }]);
    expect(await violationsOf(homeBaseBody({ name: 7 }))).toEqual([{ field: 'name', message: 'must be a string' }]);
  });
});

describe('plan_group', () => {
  it('is optional and accepts 1 to 200 characters', async () => {
    expect(await accepted(withoutField('plan_group'))).not.toHaveProperty('plan_group');
    expect(await accepted(homeBaseBody({ plan_group: 'P' }))).toMatchObject({ plan_group: 'P' });
    expect(await accepted(homeBaseBody({ plan_group: 'P'.repeat(200) }))).toMatchObject({ plan_group: 'P'.repeat(200) });
  });

  it('refuses an empty plan group and one over 200 characters', async () => {
    expect(await violationsOf(homeBaseBody({ plan_group: '' }))).toEqual([{ field: 'plan_group', message: 'must not be empty' }]);
    expect(await violationsOf(homeBaseBody({ plan_group: 'P'.repeat(201) }))).toEqual([
      { field: 'plan_group', message: 'must be at most 200 characters long' },
    ]);
  });
});

describe('address', () => {
  it('is required', async () => {
    expect(await violationsOf(withoutField('address'))).toEqual([{ field: 'address', message: 'is required' }]);
  });

  it('accepts address information without a name or address line', async () => {
    const address = { city: 'Gent', zip_code: '9000', country_code: 'BE' };
    expect(await accepted(withAddress(address))).toMatchObject({ address });
  });

  it('accepts a geo point alone, and a geo point with address information', async () => {
    expect(await accepted(geoPoint(51.05, 3.72))).toMatchObject({ address: { geo_point: { latitude: 51.05, longitude: 3.72 } } });
    const both = { city: 'Gent', zip_code: '9000', country_code: 'BE', geo_point: { latitude: 51.05, longitude: 3.72 } };
    expect(await accepted(withAddress(both))).toMatchObject({ address: both });
  });

  it('requires address information when no geo point is given, naming each missing field', async () => {
    expect(await violationsOf(withAddress({ name: 'Yard', address_line: 'Dok Noord 1' }))).toEqual([
      { field: 'address.city', message: 'is required when no geo_point is given' },
      { field: 'address.zip_code', message: 'is required when no geo_point is given' },
      { field: 'address.country_code', message: 'is required when no geo_point is given' },
    ]);
    expect(await violationsOf(withAddress({}))).toHaveLength(3);
    expect(await violationsOf(withAddress({ city: 'Gent', country_code: 'BE' }))).toEqual([
      { field: 'address.zip_code', message: 'is required when no geo_point is given' },
    ]);
  });

  it('refuses a country code that names no country, even next to a geo point', async () => {
    const unknown = [{ field: 'address.country_code', message: 'must be an ISO 3166-1 alpha-2 country code' }];
    expect(await violationsOf(withAddress({ city: 'Gent', zip_code: '9000', country_code: 'XX' }))).toEqual(unknown);
    expect(await violationsOf(withAddress({ country_code: 'XX', geo_point: { latitude: 0, longitude: 0 } }))).toEqual(unknown);
  });

  it('refuses a country code that is not two capital letters', async () => {
    for (const country_code of ['be', 'BEL', 'B', '']) {
      const violations = await violationsOf(withAddress({ city: 'Gent', zip_code: '9000', country_code }));
      expect(violations.map((violation) => violation.field), country_code).toEqual(['address.country_code']);
    }
  });

  it('accepts latitudes from -90 to 90 and longitudes from -180 to 180', async () => {
    for (const [latitude, longitude] of [
      [-90, -180],
      [90, 180],
      [0, 0],
    ]) {
      expect(await accepted(geoPoint(latitude, longitude))).toMatchObject({ address: { geo_point: { latitude, longitude } } });
    }
  });

  it('refuses a latitude or longitude out of range, naming it', async () => {
    expect(await violationsOf(geoPoint(-90.1, 0))).toEqual([{ field: 'address.geo_point.latitude', message: 'must be ≥ -90' }]);
    expect(await violationsOf(geoPoint(90.1, 0))).toEqual([{ field: 'address.geo_point.latitude', message: 'must be ≤ 90' }]);
    expect(await violationsOf(geoPoint(0, -180.1))).toEqual([{ field: 'address.geo_point.longitude', message: 'must be ≥ -180' }]);
    expect(await violationsOf(geoPoint(0, 180.1))).toEqual([{ field: 'address.geo_point.longitude', message: 'must be ≤ 180' }]);
  });

  it('refuses a geo point missing a coordinate, or with one that is not a number', async () => {
    expect(await violationsOf(withAddress({ geo_point: { latitude: 51 } }))).toEqual([
      { field: 'address.geo_point.longitude', message: 'is required' },
    ]);
    expect(await violationsOf(geoPoint('51', 3))).toEqual([{ field: 'address.geo_point.latitude', message: 'must be a number' }]);
  });

  it('refuses an unknown property of the address or of its geo point', async () => {
    expect(await violationsOf(withAddress({ ...(homeBaseBody().address as Body), street: 'x' }))).toEqual([
      { field: 'address.street', message: 'is not allowed' },
    ]);
    expect(await violationsOf(withAddress({ geo_point: { latitude: 1, longitude: 2, altitude: 3 } }))).toEqual([
      { field: 'address.geo_point.altitude', message: 'is not allowed' },
    ]);
  });

  it('refuses an address that is not an object', async () => {
    for (const address of ['Dok Noord 1, Gent', null, []]) {
      expect(await violationsOf(withAddress(address as unknown as Body))).toEqual([{ field: 'address', message: 'must be an object' }]);
    }
  });
});
