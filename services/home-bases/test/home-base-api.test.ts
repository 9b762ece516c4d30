import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, homeBaseBody, json, startHomeBases, type HomeBasesHarness } from './helpers.js';

let harness: HomeBasesHarness;
let alice: Record<string, string>;

beforeAll(async () => {
  harness = await startHomeBases();
  alice = await harness.as('tenant-a');
});

afterAll(async () => {
  await harness?.close();
});

const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'PUT', url: `${BASE}/home-base/${id}`, headers: { ...alice, ...headers }, payload: body as object });
const get = (id: string, headers = alice) => harness.app.inject({ method: 'GET', url: `${BASE}/home-base/${id}`, headers });
const remove = (id: string, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'DELETE', url: `${BASE}/home-base/${id}`, headers: { ...alice, ...headers } });

/** What a GET shows of `homeBaseBody(overrides)` stored under `id`. */
const stored = (id: string, version: number, overrides: Record<string, unknown> = {}) => ({ business_id: id, ...homeBaseBody(overrides), version });

describe('PUT /home-base/{home_base_id}', () => {
  it('creates the home base: 201 with the body, version 1, ETag, Location and Preference-Applied', async () => {
    const response = await put('hb-1', homeBaseBody(), { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(stored('hb-1', 1));
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toBe(`https://api.example.com${BASE}/home-base/hb-1`);
    expect(response.headers['preference-applied']).toBe('return=representation');
    expect(response.headers.vary).toContain('Prefer');
  });

  it('updates it: 200 and the version grows by one', async () => {
    await put('hb-2', homeBaseBody());
    const response = await put('hb-2', homeBaseBody({ plan_group: 'West' }));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual(stored('hb-2', 2, { plan_group: 'West' }));
    expect(response.headers.etag).toBe('W/"2"');
    expect(json(await get('hb-2'))).toEqual(stored('hb-2', 2, { plan_group: 'West' }));
  });

  it('keeps the version and writes nothing when the body sent back from a GET is unchanged', async () => {
    await put('hb-3', homeBaseBody());
    const read = json(await get('hb-3'));
    const before = harness.writes();
    const response = await put('hb-3', read);
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"1"');
    expect(json(response)).toEqual(read);
    expect((await put('hb-3', homeBaseBody())).headers.etag).toBe('W/"1"');
    // the same fields in another order are unchanged too
    const { name, address, plan_group } = homeBaseBody() as { name: string; address: Record<string, unknown>; plan_group: string };
    const reordered = { plan_group, address: Object.fromEntries(Object.entries(address).reverse()), name };
    expect((await put('hb-3', reordered)).headers.etag).toBe('W/"1"');
    expect(harness.writes()).toBe(before);
  });

  it('answers 204 without a body for Prefer: return=minimal, with the write headers', async () => {
    const response = await put('hb-4', homeBaseBody(), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers['preference-applied']).toBe('return=minimal');
    expect(response.headers.location).toMatch(new RegExp(`^http://[^/]+${BASE}/home-base/hb-4$`));

    const updated = await put('hb-4', homeBaseBody({ name: 'Depot Gent Noord' }), { prefer: 'return=minimal' });
    expect(updated.statusCode).toBe(204);
    expect(updated.headers.etag).toBe('W/"2"');
    expect(json(await get('hb-4'))).toMatchObject({ name: 'Depot Gent Noord', version: 2 });
  });

  it('ignores the read-only business_id and version in the body', async () => {
    const response = await put('hb-5', { ...homeBaseBody(), business_id: 'someone-else', version: 42 });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(stored('hb-5', 1));
    expect((await get('someone-else')).statusCode).toBe(404);

    const again = await put('hb-5', { ...homeBaseBody({ plan_group: 'East' }), business_id: 'other', version: 1 });
    expect(json(again)).toEqual(stored('hb-5', 2, { plan_group: 'East' }));
  });

  it('ignores the read-only address.geo_point.resolved: not stored, and no change when only it differs', async () => {
    const address = { name: 'Yard', geo_point: { latitude: 51.05, longitude: 3.72 } };
    const response = await put('hb-6', homeBaseBody({ address: { ...address, geo_point: { ...address.geo_point, resolved: { geocoded: true } } } }));
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(stored('hb-6', 1, { address }));
    expect(json(await get('hb-6'))).toEqual(stored('hb-6', 1, { address }));

    const before = harness.writes();
    const resent = await put('hb-6', homeBaseBody({ address: { ...address, geo_point: { ...address.geo_point, resolved: 'anything' } } }));
    expect(resent.statusCode).toBe(200);
    expect(resent.headers.etag).toBe('W/"1"');
    expect(harness.writes()).toBe(before);
  });

  it('accepts a home base without plan_group and drops plan_group when left out of an update', async () => {
    const { plan_group: _omitted, ...body } = homeBaseBody();
    expect(json(await put('hb-7', homeBaseBody()))).toEqual(stored('hb-7', 1));
    const response = await put('hb-7', body);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ business_id: 'hb-7', ...body, version: 2 });
  });

  it('accepts every character of the business id pattern and 512 characters', async () => {
    expect((await put('A.b~c-d_9', homeBaseBody())).statusCode).toBe(201);
    expect(json(await get('A.b~c-d_9'))).toMatchObject({ business_id: 'A.b~c-d_9' });
    expect((await put('h'.repeat(512), homeBaseBody())).statusCode).toBe(201);
  });
});

describe('If-Match on PUT and DELETE', () => {
  it('writes with the current version or *, and answers 412 to a stale one, changing nothing', async () => {
    await put('hb-m', homeBaseBody());
    const matching = await put('hb-m', homeBaseBody({ plan_group: 'a' }), { 'if-match': 'W/"1"' });
    expect(matching.statusCode).toBe(200);
    expect(matching.headers.etag).toBe('W/"2"');
    expect((await put('hb-m', homeBaseBody({ plan_group: 'b' }), { 'if-match': '*' })).statusCode).toBe(200);

    const before = harness.writes();
    const stale = await put('hb-m', homeBaseBody({ plan_group: 'c' }), { 'if-match': 'W/"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(stale)).toMatchObject({ title: expect.any(String), detail: expect.stringContaining('hb-m') });
    expect(json(stale).violations).toBeUndefined();
    expect(harness.writes()).toBe(before);
    expect(json(await get('hb-m'))).toMatchObject({ plan_group: 'b', version: 3 });
  });

  it('answers 412 to a stale If-Match even when the body is unchanged', async () => {
    await put('hb-mu', homeBaseBody());
    await put('hb-mu', homeBaseBody({ plan_group: 'v2' }));
    expect((await put('hb-mu', homeBaseBody({ plan_group: 'v2' }), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
    const current = await put('hb-mu', homeBaseBody({ plan_group: 'v2' }), { 'if-match': 'W/"2"' });
    expect(current.statusCode).toBe(200);
    expect(current.headers.etag).toBe('W/"2"');
  });

  it('answers 412 to an If-Match on a home base that does not exist, and creates nothing', async () => {
    const before = harness.writes();
    for (const ifMatch of ['W/"1"', '*']) {
      const response = await put('hb-none', homeBaseBody(), { 'if-match': ifMatch });
      expect(response.statusCode).toBe(412);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await get('hb-none')).statusCode).toBe(404);
    expect(harness.writes()).toBe(before);
  });

  it('answers 412 to an If-Match on a deleted home base', async () => {
    await put('hb-tomb', homeBaseBody());
    expect((await remove('hb-tomb')).statusCode).toBe(204);
    for (const ifMatch of ['W/"2"', 'W/"1"', '*']) {
      expect((await put('hb-tomb', homeBaseBody(), { 'if-match': ifMatch })).statusCode).toBe(412);
    }
    expect((await get('hb-tomb')).statusCode).toBe(404);
  });

  it('deletes only with the current version', async () => {
    await put('hb-dm', homeBaseBody());
    await put('hb-dm', homeBaseBody({ plan_group: 'v2' }));
    const before = harness.writes();
    const stale = await remove('hb-dm', { 'if-match': 'W/"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(harness.writes()).toBe(before);
    expect((await get('hb-dm')).statusCode).toBe(200);
    expect((await remove('hb-dm', { 'if-match': 'W/"2"' })).statusCode).toBe(204);
    expect((await get('hb-dm')).statusCode).toBe(404);
  });

  it('refuses a malformed If-Match with a violation on the header', async () => {
    const response = await put('hb-m', homeBaseBody(), { 'if-match': 'version 3' });
    expect(response.statusCode).toBe(400);
    expect(json(response).violations).toEqual([{ field: 'If-Match', message: expect.any(String) }]);
  });
});

describe('GET and DELETE /home-base/{home_base_id}', () => {
  it('reads the home base with its ETag', async () => {
    await put('hb-g', homeBaseBody());
    const response = await get('hb-g');
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"1"');
    expect(json(response)).toEqual(stored('hb-g', 1));
  });

  it('answers 404 with a problem naming a missing home base', async () => {
    const response = await get('no-such-home-base');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toMatchObject({ title: expect.any(String), detail: expect.stringContaining('no-such-home-base') });
    expect(json(response).violations).toBeUndefined();
  });

  it('deletes with an empty 204, after which it is gone and a second delete is 404', async () => {
    await put('hb-d', homeBaseBody());
    const response = await remove('hb-d');
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await get('hb-d')).statusCode).toBe(404);
    const again = await remove('hb-d');
    expect(again.statusCode).toBe(404);
    expect(again.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers 404 to a delete of a home base that never existed, writing nothing', async () => {
    const before = harness.writes();
    const response = await remove('never-there');
    expect(response.statusCode).toBe(404);
    expect(json(response)).toMatchObject({ title: expect.any(String), detail: expect.any(String) });
    expect(harness.writes()).toBe(before);
  });

  it('creates a deleted home base again, continuing its versions', async () => {
    await put('hb-again', homeBaseBody());
    await remove('hb-again');
    const response = await put('hb-again', homeBaseBody());
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(stored('hb-again', 3));
  });
});

describe('tenants', () => {
  it("never shows, changes or deletes another tenant's home base", async () => {
    const bob = await harness.as('tenant-b');
    await put('shared-hb', homeBaseBody({ plan_group: 'a' }));
    expect((await get('shared-hb', bob)).statusCode).toBe(404);
    expect((await remove('shared-hb', bob)).statusCode).toBe(404);
    expect((await put('shared-hb', homeBaseBody(), { ...bob, 'if-match': 'W/"1"' })).statusCode).toBe(412);
    expect(json(await harness.app.inject({ method: 'GET', url: `${BASE}/home-base`, headers: bob }))).toEqual({ home_bases: [], cursors: {} });

    // B's own home base under the same id is another one, with versions of its own
    const own = await put('shared-hb', homeBaseBody({ plan_group: 'b' }), bob);
    expect(own.statusCode).toBe(201);
    expect(json(own)).toEqual(stored('shared-hb', 1, { plan_group: 'b' }));
    expect(json(await get('shared-hb'))).toEqual(stored('shared-hb', 1, { plan_group: 'a' }));
    expect((await remove('shared-hb', bob)).statusCode).toBe(204);
    expect((await get('shared-hb')).statusCode).toBe(200);
  });
});

describe('authentication', () => {
  it('answers 401 without a token, with WWW-Authenticate and no body fields', async () => {
    const response = await harness.app.inject({ method: 'GET', url: `${BASE}/home-base/hb-1` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.body).toBe('');
  });
});
