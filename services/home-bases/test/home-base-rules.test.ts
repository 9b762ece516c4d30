import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, homeBaseBody, json, startHomeBases, type HomeBasesHarness } from './helpers.js';

let harness: HomeBasesHarness;
let alice: Record<string, string>;

beforeAll(async () => {
  harness = await startHomeBases();
  alice = await harness.as('tenant-rules');
});

afterAll(async () => {
  await harness?.close();
});

type Violation = { field: string; message: string };
type Body = Record<string, unknown>;

let counter = 0;
/** A fresh id, so that every accepted body creates its own home base. */
const nextId = () => `hb-${(counter += 1)}`;

const put = (id: string, body: unknown) =>
  harness.app.inject({ method: 'PUT', url: `${BASE}/home-base/${id}`, headers: alice, payload: body as object });

function expectProblem(response: LightMyRequestResponse): Violation[] {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = json<{ title: string; detail: string; violations: Violation[] }>(response);
  expect(problem.title).toEqual(expect.any(String));
  expect(problem.detail).toEqual(expect.any(String));
  return problem.violations;
}

/** The violations of a refused body; also checks that nothing was written under its id. */
async function violationsOf(body: unknown): Promise<Violation[]> {
  const id = nextId();
  const before = harness.writes();
  const violations = expectProblem(await put(id, body));
  expect(harness.writes()).toBe(before);
  expect((await harness.app.inject({ method: 'GET', url: `${BASE}/home-base/${id}`, headers: alice })).statusCode).toBe(404);
  return violations;
}

/** The stored representation of an accepted body (201), checked to be what a GET shows. */
async function accepted(body: unknown): Promise<Body> {
  const id = nextId();
  const response = await put(id, body);
  expect(response.statusCode, response.body).toBe(201);
  const read = await harness.app.inject({ method: 'GET', url: `${BASE}/home-base/${id}`, headers: alice });
  expect(json(read)).toEqual(json(response));
  return json(response);
}

const withoutField = (field: string): Body => Object.fromEntries(Object.entries(homeBaseBody()).filter(([key]) => key !== field));
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

describe('unknown fields', () => {
  it('refuses an unknown top-level field, naming it', async () => {
    expect(await violationsOf(homeBaseBody({ colour: 'red' }))).toEqual([{ field: 'colour', message: 'is not allowed' }]);
  });

  it('names every broken rule at once', async () => {
    const violations = await violationsOf({ ...homeBaseBody({ name: '', plan_group: '' }), colour: 'red' });
    expect(violations.map((violation) => violation.field).sort()).toEqual(['colour', 'name', 'plan_group']);
  });

  it('refuses a body that is not an object', async () => {
    expect(expectProblem(await put(nextId(), [homeBaseBody()]))).toEqual([{ field: 'body', message: 'must be an object' }]);
  });
});

describe('the home base id in the path', () => {
  it('refuses an id outside the business id pattern or longer than 512 characters, naming home_base_id', async () => {
    for (const id of ['bad%20id', 'h'.repeat(513), 'caf%C3%A9', 'hb!1']) {
      for (const response of [
        await put(id, homeBaseBody()),
        await harness.app.inject({ method: 'GET', url: `${BASE}/home-base/${id}`, headers: alice }),
        await harness.app.inject({ method: 'DELETE', url: `${BASE}/home-base/${id}`, headers: alice }),
      ]) {
        const violations = expectProblem(response);
        expect(violations.length).toBeGreaterThan(0);
        expect(new Set(violations.map((violation) => violation.field))).toEqual(new Set(['home_base_id']));
      }
    }
  });
});
