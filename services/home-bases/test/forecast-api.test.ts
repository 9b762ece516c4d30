import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@rm/contracts';
import { uniqueName, waitFor, type RecordedEvents } from '@rm/testkit';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { BASE, json, recordTenantEvents, startHomeBases, type HomeBasesHarness } from './helpers.js';

// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('forecast');
const otherTenant = uniqueName('forecast_b');
let harness: HomeBasesHarness;
let alice: Record<string, string>;
let bob: Record<string, string>;
let events: RecordedEvents<EventEnvelope>;

beforeAll(async () => {
  harness = await startHomeBases();
  alice = await harness.as(tenant);
  bob = await harness.as(otherTenant);
  events = await recordTenantEvents(tenant);
});

afterAll(async () => {
  await events?.close();
  await harness?.close();
});

type Body = Record<string, unknown>;
type Violation = { field: string; message: string };
type Method = 'GET' | 'PUT' | 'DELETE';

const DATE = '2026-11-21';
let counter = 0;
/** A fresh location, so that every test works on forecasts of its own. */
const nextLocation = () => `loc-${(counter += 1)}`;

const pathOf = (date: string, location: string) => `/resource-overview/${date}/${location}/forecasts`;

function request(method: Method, date: string, location: string, payload?: unknown, extra: Record<string, string> = {}) {
  return harness.app.inject({
    method,
    url: `${BASE}${pathOf(date, location)}`,
    headers: { ...alice, ...extra },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

const put = (date: string, location: string, body: unknown, extra: Record<string, string> = {}) =>
  request('PUT', date, location, body, extra);
const get = (date: string, location: string, extra: Record<string, string> = {}) => request('GET', date, location, undefined, extra);
const remove = (date: string, location: string, extra: Record<string, string> = {}) =>
  request('DELETE', date, location, undefined, extra);

/** What a GET shows of a forecast. */
const forecast = (date: string, location: string, fields: Body, version: number) => ({ date, location, ...fields, version });

/** The violations of a 400 problem. */
function violationsOf(response: LightMyRequestResponse): Violation[] {
  const { violations } = expectProblemWithStatus(response, 400);
  expect(violations).toEqual(expect.any(Array));
  return violations as Violation[];
}

describe('PUT /resource-overview/{date}/{location}/forecasts', () => {
  it('creates the forecast: 201 with the representation, version 1, ETag and an absolute Location', async () => {
    const location = nextLocation();
    const response = await put(DATE, location, { expected_shifts: 12, description: 'Black Friday' }, {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toEqual({ date: DATE, location, expected_shifts: 12, description: 'Black Friday', version: 1 });
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toBe(`https://api.example.com${BASE}${pathOf(DATE, location)}`);
  });

  it('creates a forecast without a description, and the Location is absolute without forwarding headers too', async () => {
    const location = nextLocation();
    const response = await put(DATE, location, { expected_shifts: 0 });
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toEqual({ date: DATE, location, expected_shifts: 0, version: 1 });
    expect(response.headers.location).toMatch(new RegExp(`^https?://[^/]+${BASE}${pathOf(DATE, location)}$`));
  });

  it('replaces it: 200, version 2, and what GET shows afterwards', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 5 });
    const response = await put(DATE, location, { expected_shifts: 7, description: 'more' });
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toEqual(forecast(DATE, location, { expected_shifts: 7, description: 'more' }, 2));
    expect(response.headers.etag).toBe('W/"2"');
    expect(response.headers.location).toMatch(new RegExp(`${BASE}${pathOf(DATE, location)}$`));
    expect(json(await get(DATE, location))).toEqual(forecast(DATE, location, { expected_shifts: 7, description: 'more' }, 2));
  });

  it('drops a description that the replacing body leaves out', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 5, description: 'peak' });
    const response = await put(DATE, location, { expected_shifts: 5 });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual(forecast(DATE, location, { expected_shifts: 5 }, 2));
    const read = json(await get(DATE, location));
    expect(read).toEqual(forecast(DATE, location, { expected_shifts: 5 }, 2));
    expect(read).not.toHaveProperty('description');
  });

  it('keeps the version and writes nothing for an unchanged PUT, also when the GET body is sent back', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 3, description: 'same' });
    const read = json(await get(DATE, location));
    const before = harness.writes();

    const same = await put(DATE, location, { expected_shifts: 3, description: 'same' });
    expect(same.statusCode).toBe(200);
    expect(same.headers.etag).toBe('W/"1"');
    expect(json(same)).toEqual(read);
    const echoed = await put(DATE, location, read);
    expect(echoed.statusCode).toBe(200);
    expect(echoed.headers.etag).toBe('W/"1"');
    expect(json(echoed)).toEqual(read);
    const reordered = await put(DATE, location, { description: 'same', expected_shifts: 3 });
    expect(reordered.headers.etag).toBe('W/"1"');
    expect(harness.writes()).toBe(before);
    expect(json(await get(DATE, location))).toEqual(read);
  });

  it('answers 204 without a body for Prefer: return=minimal, with the ETag and Location', async () => {
    const location = nextLocation();
    const created = await put(DATE, location, { expected_shifts: 1 }, { prefer: 'return=minimal' });
    expect(created.statusCode).toBe(204);
    expect(created.body).toBe('');
    expect(created.headers.etag).toBe('W/"1"');
    expect(created.headers.location).toMatch(new RegExp(`^https?://[^/]+${BASE}${pathOf(DATE, location)}$`));

    const updated = await put(DATE, location, { expected_shifts: 2 }, { prefer: 'return=minimal' });
    expect(updated.statusCode).toBe(204);
    expect(updated.body).toBe('');
    expect(updated.headers.etag).toBe('W/"2"');
    expect(json(await get(DATE, location))).toEqual(forecast(DATE, location, { expected_shifts: 2 }, 2));
  });

  it('ignores the read-only date, location and version in the body', async () => {
    const location = nextLocation();
    const response = await put(DATE, location, { expected_shifts: 4, date: '1999-01-01', location: 'elsewhere', version: 42 });
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toEqual(forecast(DATE, location, { expected_shifts: 4 }, 1));
    expect((await get('1999-01-01', 'elsewhere')).statusCode).toBe(404);
    expect((await get(DATE, 'elsewhere')).statusCode).toBe(404);
    expect((await get('1999-01-01', location)).statusCode).toBe(404);

    // read-only fields of any shape are ignored, and do not count as a change
    const again = await put(DATE, location, { expected_shifts: 4, date: null, location: { x: 1 }, version: 'v7' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers.etag).toBe('W/"1"');
    expect(json(again)).toEqual(forecast(DATE, location, { expected_shifts: 4 }, 1));
  });
});

describe('If-Match', () => {
  it('replaces with the current version or *, and answers 412 to a stale one, changing nothing', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 1 });
    const matching = await put(DATE, location, { expected_shifts: 2 }, { 'if-match': 'W/"1"' });
    expect(matching.statusCode).toBe(200);
    expect(matching.headers.etag).toBe('W/"2"');
    const star = await put(DATE, location, { expected_shifts: 3 }, { 'if-match': '*' });
    expect(star.statusCode).toBe(200);
    expect(star.headers.etag).toBe('W/"3"');

    const before = harness.writes();
    const stale = await put(DATE, location, { expected_shifts: 4 }, { 'if-match': 'W/"1"' });
    const problem = expectProblemWithStatus(stale, 412);
    expect(problem.violations).toBeUndefined();
    expect(problem.detail).toBe(`If-Match does not match the current version of the forecast for '${location}' on ${DATE} (W/"3")`);
    expect(harness.writes()).toBe(before);
    expect(json(await get(DATE, location))).toEqual(forecast(DATE, location, { expected_shifts: 3 }, 3));
  });

  it('answers 412 to an If-Match on a forecast that does not exist, and creates nothing', async () => {
    const location = nextLocation();
    const before = harness.writes();
    for (const ifMatch of ['W/"1"', '*']) {
      const problem = expectProblemWithStatus(await put(DATE, location, { expected_shifts: 1 }, { 'if-match': ifMatch }), 412);
      expect(problem.detail).toBe(`If-Match given, but there is no forecast for '${location}' on ${DATE}`);
    }
    expect(harness.writes()).toBe(before);
    expect((await get(DATE, location)).statusCode).toBe(404);
  });

  it('deletes only with the current version: 412 to a stale one', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 1 });
    await put(DATE, location, { expected_shifts: 2 });
    const before = harness.writes();
    expectProblemWithStatus(await remove(DATE, location, { 'if-match': 'W/"1"' }), 412);
    expect(harness.writes()).toBe(before);
    expect((await get(DATE, location)).statusCode).toBe(200);
    expect((await remove(DATE, location, { 'if-match': 'W/"2"' })).statusCode).toBe(204);
    expect((await get(DATE, location)).statusCode).toBe(404);
  });

  it('refuses a malformed If-Match with a violation on the header', async () => {
    const location = nextLocation();
    const violations = violationsOf(await put(DATE, location, { expected_shifts: 1 }, { 'if-match': 'version 3' }));
    expect(violations).toEqual([{ field: 'If-Match', message: expect.any(String) }]);
  });
});

describe('GET and DELETE', () => {
  it('reads the forecast with its ETag', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 9, description: 'read me' });
    await put(DATE, location, { expected_shifts: 10, description: 'read me' });
    const response = await get(DATE, location);
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"2"');
    expect(json(response)).toEqual(forecast(DATE, location, { expected_shifts: 10, description: 'read me' }, 2));
  });

  it('answers 404 with a problem naming the location and date when there is no forecast', async () => {
    const location = nextLocation();
    const problem = expectProblemWithStatus(await get(DATE, location), 404);
    expect(problem.detail).toEqual(expect.stringContaining(location));
    expect(problem.detail).toEqual(expect.stringContaining(DATE));
    expect(problem.violations).toBeUndefined();
  });

  it('deletes with an empty 204, after which GET is 404', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 1 });
    const response = await remove(DATE, location);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expectProblemWithStatus(await get(DATE, location), 404);
    expectProblemWithStatus(await remove(DATE, location), 404);
  });

  it('answers 404 to a delete of a missing forecast, naming its location and date but not the stored key', async () => {
    const location = 'x';
    const before = harness.writes();
    const problem = expectProblemWithStatus(await remove(DATE, location), 404);
    expect(problem.detail).toEqual(expect.stringContaining(`'${location}'`));
    expect(problem.detail).toEqual(expect.stringContaining(DATE));
    expect(problem.detail).not.toContain(`${DATE}_${location}`);
    expect(problem.violations).toBeUndefined();
    expect(harness.writes()).toBe(before);
  });
});

describe('forecasts are apart', () => {
  it('keeps forecasts of the same date at different locations, and of the same location on different dates, apart', async () => {
    const [a, b] = [nextLocation(), nextLocation()];
    const other = '2026-11-22';
    expect((await put(DATE, a, { expected_shifts: 1 })).statusCode).toBe(201);
    expect((await put(DATE, b, { expected_shifts: 2 })).statusCode).toBe(201);
    expect((await put(other, a, { expected_shifts: 3 })).statusCode).toBe(201);

    expect(json(await get(DATE, a))).toEqual(forecast(DATE, a, { expected_shifts: 1 }, 1));
    expect(json(await get(DATE, b))).toEqual(forecast(DATE, b, { expected_shifts: 2 }, 1));
    expect(json(await get(other, a))).toEqual(forecast(other, a, { expected_shifts: 3 }, 1));
    expect((await get(other, b)).statusCode).toBe(404);

    expect((await remove(DATE, a)).statusCode).toBe(204);
    expect((await get(DATE, a)).statusCode).toBe(404);
    expect(json(await get(DATE, b))).toMatchObject({ expected_shifts: 2, version: 1 });
    expect(json(await get(other, a))).toMatchObject({ expected_shifts: 3, version: 1 });
  });
});

describe('tenants', () => {
  it("never shows, changes or deletes another tenant's forecast, and each has its own for the same day and place", async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 8 });

    expectProblemWithStatus(await get(DATE, location, bob), 404);
    expectProblemWithStatus(await remove(DATE, location, bob), 404);
    expectProblemWithStatus(await put(DATE, location, { expected_shifts: 1 }, { ...bob, 'if-match': 'W/"1"' }), 412);

    const own = await put(DATE, location, { expected_shifts: 99 }, bob);
    expect(own.statusCode).toBe(201);
    expect(json(own)).toEqual(forecast(DATE, location, { expected_shifts: 99 }, 1));
    expect(json(await get(DATE, location, bob))).toEqual(forecast(DATE, location, { expected_shifts: 99 }, 1));
    expect(json(await get(DATE, location))).toEqual(forecast(DATE, location, { expected_shifts: 8 }, 1));

    expect((await remove(DATE, location, bob)).statusCode).toBe(204);
    expect(json(await get(DATE, location))).toEqual(forecast(DATE, location, { expected_shifts: 8 }, 1));
  });
});

describe('the body', () => {
  /** The violations of a refused body; also checks that nothing was written. */
  async function refused(body: unknown): Promise<Violation[]> {
    const location = nextLocation();
    const before = harness.writes();
    const violations = violationsOf(await put(DATE, location, body));
    expect(harness.writes()).toBe(before);
    expect((await get(DATE, location)).statusCode).toBe(404);
    return violations;
  }

  /** The representation of an accepted body (201), checked against what GET shows. */
  async function accepted(body: Body): Promise<Body> {
    const location = nextLocation();
    const response = await put(DATE, location, body);
    expect(response.statusCode, response.body).toBe(201);
    expect(json(await get(DATE, location))).toEqual(json(response));
    return json(response);
  }

  it('accepts expected_shifts from 0 to 1,000,000 and descriptions of 1 to 1000 characters', async () => {
    expect(await accepted({ expected_shifts: 0 })).toMatchObject({ expected_shifts: 0 });
    expect(await accepted({ expected_shifts: 1_000_000 })).toMatchObject({ expected_shifts: 1_000_000 });
    expect(await accepted({ expected_shifts: 1, description: 'd' })).toMatchObject({ description: 'd' });
    expect(await accepted({ expected_shifts: 1, description: 'd'.repeat(1000) })).toMatchObject({ description: 'd'.repeat(1000) });
  });

  it('requires expected_shifts', async () => {
    expect(await refused({})).toEqual([{ field: 'expected_shifts', message: 'is required' }]);
    expect(await refused({ description: 'no count' })).toEqual([{ field: 'expected_shifts', message: 'is required' }]);
  });

  it('refuses an expected_shifts below 0, above 1,000,000, or that is not an integer', async () => {
    expect(await refused({ expected_shifts: -1 })).toEqual([{ field: 'expected_shifts', message: 'must be ≥ 0' }]);
    expect(await refused({ expected_shifts: 1_000_001 })).toEqual([{ field: 'expected_shifts', message: 'must be ≤ 1000000' }]);
    for (const expected_shifts of [1.5, '3', null, true]) {
      expect(await refused({ expected_shifts }), String(expected_shifts)).toEqual([
        { field: 'expected_shifts', message: 'must be an integer' },
      ]);
    }
  });

  it('refuses an empty description, one over 1000 characters and one that is not a string', async () => {
    expect(await refused({ expected_shifts: 1, description: '' })).toEqual([{ field: 'description', message: 'must not be empty' }]);
    expect(await refused({ expected_shifts: 1, description: 'd'.repeat(1001) })).toEqual([
      { field: 'description', message: 'must be at most 1000 characters long' },
    ]);
    expect(await refused({ expected_shifts: 1, description: 5 })).toEqual([{ field: 'description', message: 'must be a string' }]);
  });

  it('refuses any other property, naming it, and names every broken rule at once', async () => {
    expect(await refused({ expected_shifts: 1, colour: 'red' })).toEqual([{ field: 'colour', message: 'is not allowed' }]);
    const violations = await refused({ expected_shifts: -5, description: '', colour: 'red' });
    expect(violations.map((violation) => violation.field).sort()).toEqual(['colour', 'description', 'expected_shifts']);
  });

  it('refuses a body that is not an object', async () => {
    expect(await refused([{ expected_shifts: 1 }])).toEqual([{ field: 'body', message: 'must be an object' }]);
  });

  it('refuses an unknown property on a replacement too, leaving the forecast as it was', async () => {
    const location = nextLocation();
    await put(DATE, location, { expected_shifts: 1 });
    const violations = violationsOf(await put(DATE, location, { expected_shifts: 2, version: 1, id: 'x' }));
    expect(violations).toEqual([{ field: 'id', message: 'is not allowed' }]);
    expect(json(await get(DATE, location))).toEqual(forecast(DATE, location, { expected_shifts: 1 }, 1));
  });
});

describe('the path', () => {
  const every = (date: string, location: string) => [
    () => put(date, location, { expected_shifts: 1 }),
    () => get(date, location),
    () => remove(date, location),
  ];

  it('refuses a date that is not a calendar date YYYY-MM-DD, naming date, on PUT, GET and DELETE', async () => {
    const before = harness.writes();
    for (const date of ['2026-02-30', '2025-02-29', '2026-13-01', '2026-1-5', 'today', '2026-04-31', '2026-00-10', '20260105']) {
      for (const send of every(date, 'loc-date')) {
        const violations = violationsOf(await send());
        expect(violations, date).toEqual([{ field: 'date', message: 'must be a date like 2024-05-01' }]);
      }
    }
    expect(harness.writes()).toBe(before);
  });

  it('accepts a leap day of a leap year', async () => {
    const location = nextLocation();
    const response = await put('2024-02-29', location, { expected_shifts: 1 });
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toEqual(forecast('2024-02-29', location, { expected_shifts: 1 }, 1));
    expect(json(await get('2024-02-29', location))).toMatchObject({ date: '2024-02-29' });
    expect((await remove('2024-02-29', location)).statusCode).toBe(204);
  });

  it('accepts every character of the business id pattern and 512 characters as location', async () => {
    for (const location of ['A.b~c-d_9', 'l'.repeat(512)]) {
      const response = await put(DATE, location, { expected_shifts: 1 });
      expect(response.statusCode, response.body).toBe(201);
      expect(json(response)).toMatchObject({ location });
      expect(json(await get(DATE, location))).toMatchObject({ location });
    }
  });

  it('refuses a location outside the business id pattern or longer than 512 characters, naming location', async () => {
    const before = harness.writes();
    for (const location of ['bad%20id', 'a@b', 'l'.repeat(513), 'caf%C3%A9', 'hb!1']) {
      for (const send of every(DATE, location)) {
        const violations = violationsOf(await send());
        expect(violations.length, location).toBeGreaterThan(0);
        expect(new Set(violations.map((violation) => violation.field)), location).toEqual(new Set(['location']));
      }
    }
    expect(harness.writes()).toBe(before);
  });

  it('names both path parameters when both are wrong', async () => {
    const violations = violationsOf(await get('2026-02-30', 'a@b'));
    expect(new Set(violations.map((violation) => violation.field))).toEqual(new Set(['date', 'location']));
  });
});

describe('authentication', () => {
  it('answers 401 without a token, to PUT, GET and DELETE, writing nothing', async () => {
    const location = nextLocation();
    const before = harness.writes();
    for (const method of ['PUT', 'GET', 'DELETE'] as const) {
      const response = await harness.app.inject({
        method,
        url: `${BASE}${pathOf(DATE, location)}`,
        ...(method === 'PUT' ? { payload: { expected_shifts: 1 } } : {}),
      });
      expect(response.statusCode, method).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect(harness.writes()).toBe(before);
    expect((await get(DATE, location)).statusCode).toBe(404);
  });
});

describe('forecast events', () => {
  const subject = (action: string) => `rm.home-bases.${tenant}.forecast.${action}`;
  const dataOf = (event: EventEnvelope) => event.data as Body;
  const eventsOf = (date: string, location: string) =>
    events.received.filter(({ event }) => dataOf(event)?.location === location && dataOf(event)?.date === date);
  const arrived = (date: string, location: string, count: number) =>
    waitFor(`${count} events of ${location}`, async () => eventsOf(date, location).length >= count && eventsOf(date, location));

  /** Waits for a write made after everything before it, then a little more: what was due has arrived by then. */
  async function settle(): Promise<void> {
    const sentinel = `sentinel-${randomUUID()}`;
    expect((await put(DATE, sentinel, { expected_shifts: 1 })).statusCode).toBe(201);
    await waitFor('the sentinel event', async () => eventsOf(DATE, sentinel).length > 0);
    await sleep(300);
  }

  /** What arrived after `seen` events, sentinels left out. */
  const arrivedSince = (seen: number) =>
    events.received.slice(seen).filter(({ event }) => !String(dataOf(event)?.location).startsWith('sentinel-'));

  it('publishes created, updated and deleted once each, in order, with the representation as data', async () => {
    const location = `ev-${randomUUID()}`;
    const created = await put(DATE, location, { expected_shifts: 5, description: 'first' });
    expect(created.statusCode).toBe(201);
    expect((await put(DATE, location, { expected_shifts: 5, description: 'first' })).headers.etag).toBe('W/"1"'); // unchanged: no event
    const updated = await put(DATE, location, { expected_shifts: 6 });
    expect(updated.statusCode).toBe(200);
    expect((await remove(DATE, location)).statusCode).toBe(204);

    await arrived(DATE, location, 3);
    await settle();
    const published = eventsOf(DATE, location);
    expect(published.map(({ subject: on, event }) => [on, event.type, event.version])).toEqual([
      [subject('created'), 'forecast.created', 1],
      [subject('updated'), 'forecast.updated', 2],
      [subject('deleted'), 'forecast.deleted', 3],
    ]);
    expect(published[0]?.event.data).toEqual(json(created));
    expect(published[0]?.event.data).toEqual(forecast(DATE, location, { expected_shifts: 5, description: 'first' }, 1));
    expect(published[1]?.event.data).toEqual(json(updated));
    expect(published[1]?.event.data).toEqual(forecast(DATE, location, { expected_shifts: 6 }, 2));
    // a delete carries the removed state
    expect(published[2]?.event.data).toEqual(json(updated));
    for (const { event } of published) {
      expect(event.tenant).toBe(tenant);
      expect(Date.parse(event.occurred_at)).not.toBeNaN();
    }
    expect(new Set(published.map(({ event }) => event.id)).size).toBe(3);
  });

  it('publishes one updated event for a replacement made with Prefer: return=minimal', async () => {
    const location = `ev-${randomUUID()}`;
    await put(DATE, location, { expected_shifts: 1 });
    expect((await put(DATE, location, { expected_shifts: 2 }, { prefer: 'return=minimal' })).statusCode).toBe(204);
    await arrived(DATE, location, 2);
    await settle();
    const published = eventsOf(DATE, location);
    expect(published.map(({ subject: on, event }) => [on, event.version])).toEqual([
      [subject('created'), 1],
      [subject('updated'), 2],
    ]);
    expect(published[1]?.event.data).toEqual(json(await get(DATE, location)));
  });

  it('publishes nothing for an unchanged PUT or a refused write (400, 404, 412)', async () => {
    const location = `ev-${randomUUID()}`;
    await put(DATE, location, { expected_shifts: 1, description: 'kept' });
    const state = json(await get(DATE, location));
    await arrived(DATE, location, 1);
    await settle();
    const seen = events.received.length;

    const writes: [number, () => Promise<LightMyRequestResponse>][] = [
      [200, () => put(DATE, location, state)],
      [200, () => put(DATE, location, { expected_shifts: 1, description: 'kept' })],
      [400, () => put(DATE, location, { expected_shifts: 1, colour: 'red' })],
      [400, () => put(DATE, `ev-${randomUUID()}`, { expected_shifts: -1 })],
      [400, () => put('2026-02-30', location, { expected_shifts: 1 })],
      [404, () => remove(DATE, `ev-${randomUUID()}`)],
      [412, () => put(DATE, location, { expected_shifts: 2 }, { 'if-match': 'W/"7"' })],
      [412, () => put(DATE, `ev-${randomUUID()}`, { expected_shifts: 2 }, { 'if-match': '*' })],
      [412, () => remove(DATE, location, { 'if-match': 'W/"7"' })],
    ];
    for (const [status, write] of writes) expect((await write()).statusCode, `answered ${status}`).toBe(status);
    await settle();
    expect(arrivedSince(seen)).toEqual([]);
    expect(json(await get(DATE, location))).toEqual(state);
  });

  it("publishes another tenant's writes on that tenant's subjects only", async () => {
    const location = `ev-${randomUUID()}`;
    expect((await put(DATE, location, { expected_shifts: 1 }, bob)).statusCode).toBe(201);
    expect((await remove(DATE, location, bob)).statusCode).toBe(204);
    await settle();
    expect(eventsOf(DATE, location)).toEqual([]);
  });
});
