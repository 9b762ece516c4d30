import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, json, startTransportResources, truckBody, type TransportResourcesHarness } from './helpers.js';

let harness: TransportResourcesHarness;
let alice: Record<string, string>;

beforeAll(async () => {
  harness = await startTransportResources();
  alice = await harness.as('tenant-a');
});

afterAll(async () => {
  await harness?.close();
});

const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'PUT', url: `${BASE}/transport-resource/${id}`, headers: { ...alice, ...headers }, payload: body as object });
const get = (id: string, headers = alice) => harness.app.inject({ method: 'GET', url: `${BASE}/transport-resource/${id}`, headers });
const remove = (id: string, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'DELETE', url: `${BASE}/transport-resource/${id}`, headers: { ...alice, ...headers } });

/** What a GET shows of `truckBody(overrides)` stored under `id`: `inactive` filled in. */
const stored = (id: string, version: number, overrides: Record<string, unknown> = {}) => ({
  business_id: id,
  ...truckBody(overrides),
  inactive: false,
  version,
});

describe('PUT /transport-resource/{transport_resource_id}', () => {
  it('creates the transport resource: 201 with the body, version 1, inactive filled in, ETag, Location and Preference-Applied', async () => {
    const response = await put('truck-1', truckBody(), {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
    });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(stored('truck-1', 1));
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toBe(`https://api.example.com${BASE}/transport-resource/truck-1`);
    expect(response.headers['preference-applied']).toBe('return=representation');
    expect(response.headers.vary).toContain('Prefer');
  });

  it('updates it: 200 and the version grows by one', async () => {
    await put('truck-2', truckBody());
    const response = await put('truck-2', truckBody({ labels: ['refrigerated'] }));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual(stored('truck-2', 2, { labels: ['refrigerated'] }));
    expect(response.headers.etag).toBe('W/"2"');
    expect(json(await get('truck-2'))).toEqual(stored('truck-2', 2, { labels: ['refrigerated'] }));
  });

  it('keeps the version and writes nothing when the body sent back from a GET is unchanged', async () => {
    await put('truck-3', truckBody({ custom_data: { fleet: { id: 7 } } }));
    const read = json(await get('truck-3'));
    const before = harness.writes();
    const response = await put('truck-3', read);
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"1"');
    expect(json(response)).toEqual(read);
    expect(harness.writes()).toBe(before);
    // the same body as first sent (inactive left to its default) is unchanged too
    expect((await put('truck-3', truckBody({ custom_data: { fleet: { id: 7 } } }))).headers.etag).toBe('W/"1"');
    expect(harness.writes()).toBe(before);
  });

  it('keeps the version when a body differs only by defaults spelled out or by digits beyond the fourth decimal of a cost', async () => {
    await put('truck-3b', truckBody({ capacities: [{ value: 10 }], costs: { per_km: 0.12344 } }));
    const before = harness.writes();
    for (const body of [
      truckBody({ capacities: [{ type: 'volume', value: 10 }], costs: { per_km: 0.1234 }, inactive: false }),
      truckBody({ capacities: [{ value: 10 }], costs: { per_km: 0.123399 } }),
    ]) {
      const response = await put('truck-3b', body);
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBe('W/"1"');
    }
    expect(harness.writes()).toBe(before);
    expect((await put('truck-3b', truckBody({ capacities: [{ value: 10 }], costs: { per_km: 0.12346 } }))).headers.etag).toBe('W/"2"');
  });

  it('answers 204 without a body for Prefer: return=minimal, with the write headers', async () => {
    const response = await put('truck-4', truckBody(), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers['preference-applied']).toBe('return=minimal');
    expect(response.headers.location).toMatch(new RegExp(`^http://[^/]+${BASE}/transport-resource/truck-4$`));

    const updated = await put('truck-4', truckBody({ reference: 'R-4' }), { prefer: 'return=minimal' });
    expect(updated.statusCode).toBe(204);
    expect(updated.headers.etag).toBe('W/"2"');
    expect(json(await get('truck-4'))).toMatchObject({ reference: 'R-4', version: 2 });
  });

  it('ignores the read-only business_id and version in the body', async () => {
    const response = await put('truck-5', { ...truckBody(), business_id: 'someone-else', version: 42 });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(stored('truck-5', 1));
    expect((await get('someone-else')).statusCode).toBe(404);

    const again = await put('truck-5', { ...truckBody({ labels: ['x'] }), business_id: 'other', version: 1 });
    expect(json(again)).toEqual(stored('truck-5', 2, { labels: ['x'] }));
  });

  it('accepts a home base instead of a start location', async () => {
    await harness.createHomeBases('tenant-a', 'hb.gent-1');
    const { start_location: _omitted, ...body } = truckBody();
    const response = await put('truck-6', { ...body, home_base: { business_id: 'hb.gent-1' } });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ business_id: 'truck-6', ...body, home_base: { business_id: 'hb.gent-1' }, inactive: false, version: 1 });
  });

  it('accepts every character of the business id pattern and 512 characters', async () => {
    expect((await put('A.b~c-d_9', truckBody())).statusCode).toBe(201);
    expect(json(await get('A.b~c-d_9'))).toMatchObject({ business_id: 'A.b~c-d_9' });
    expect((await put('t'.repeat(512), truckBody())).statusCode).toBe(201);
  });
});

describe('If-Match on PUT and DELETE', () => {
  it('writes with the current version or *, and answers 412 to a stale one, changing nothing', async () => {
    await put('truck-m', truckBody());
    const matching = await put('truck-m', truckBody({ labels: ['a'] }), { 'if-match': 'W/"1"' });
    expect(matching.statusCode).toBe(200);
    expect(matching.headers.etag).toBe('W/"2"');
    expect((await put('truck-m', truckBody({ labels: ['b'] }), { 'if-match': '*' })).statusCode).toBe(200);

    const before = harness.writes();
    const stale = await put('truck-m', truckBody({ labels: ['c'] }), { 'if-match': 'W/"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(stale)).toMatchObject({ title: expect.any(String), detail: expect.stringContaining('truck-m') });
    expect(json(stale).violations).toBeUndefined();
    expect(harness.writes()).toBe(before);
    expect(json(await get('truck-m'))).toMatchObject({ labels: ['b'], version: 3 });
  });

  it('answers 412 to a stale If-Match even when the body is unchanged, and 200 keeping the version to the current one', async () => {
    await put('truck-mu', truckBody());
    await put('truck-mu', truckBody({ labels: ['v2'] }));
    expect((await put('truck-mu', truckBody({ labels: ['v2'] }), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
    const current = await put('truck-mu', truckBody({ labels: ['v2'] }), { 'if-match': 'W/"2"' });
    expect(current.statusCode).toBe(200);
    expect(current.headers.etag).toBe('W/"2"');
  });

  it('matches any of several entity tags in If-Match', async () => {
    await put('truck-ml', truckBody());
    const response = await put('truck-ml', truckBody({ labels: ['l'] }), { 'if-match': 'W/"5", W/"1"' });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"2"');
  });

  it('answers 412 to an If-Match on a deleted transport resource, even with the version of its deletion', async () => {
    await put('truck-tomb', truckBody());
    expect((await remove('truck-tomb')).statusCode).toBe(204);
    for (const ifMatch of ['W/"2"', 'W/"1"', '*']) {
      expect((await put('truck-tomb', truckBody(), { 'if-match': ifMatch })).statusCode).toBe(412);
      expect([404, 412]).toContain((await remove('truck-tomb', { 'if-match': ifMatch })).statusCode);
    }
    expect((await get('truck-tomb')).statusCode).toBe(404);
  });

  it('answers 412 to an If-Match on a transport resource that does not exist, and creates nothing', async () => {
    const before = harness.writes();
    expect((await put('truck-none', truckBody(), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
    expect((await put('truck-none', truckBody(), { 'if-match': '*' })).statusCode).toBe(412);
    expect((await get('truck-none')).statusCode).toBe(404);
    expect(harness.writes()).toBe(before);
  });

  it('deletes only with the current version', async () => {
    await put('truck-dm', truckBody());
    await put('truck-dm', truckBody({ labels: ['v2'] }));
    const stale = await remove('truck-dm', { 'if-match': 'W/"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await get('truck-dm')).statusCode).toBe(200);
    expect((await remove('truck-dm', { 'if-match': 'W/"2"' })).statusCode).toBe(204);
    expect((await get('truck-dm')).statusCode).toBe(404);
  });

  it('refuses a malformed If-Match with a violation on the header', async () => {
    const response = await put('truck-m', truckBody(), { 'if-match': 'version 3' });
    expect(response.statusCode).toBe(400);
    expect(json(response).violations).toEqual([{ field: 'If-Match', message: expect.any(String) }]);
  });
});

describe('GET and DELETE /transport-resource/{transport_resource_id}', () => {
  it('reads the transport resource with its ETag', async () => {
    await put('truck-g', truckBody());
    const response = await get('truck-g');
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"1"');
    expect(json(response)).toEqual(stored('truck-g', 1));
  });

  it('answers 404 with a problem naming a missing transport resource', async () => {
    const response = await get('no-such-truck');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toMatchObject({ title: expect.any(String), detail: expect.stringContaining('no-such-truck') });
  });

  it('deletes with an empty 204, after which it is gone and a second delete is 404', async () => {
    await put('truck-d', truckBody());
    const response = await remove('truck-d');
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await get('truck-d')).statusCode).toBe(404);
    const again = await remove('truck-d');
    expect(again.statusCode).toBe(404);
    expect(again.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers 404 to a delete of a transport resource that never existed, writing nothing', async () => {
    const before = harness.writes();
    const response = await remove('never-there');
    expect(response.statusCode).toBe(404);
    expect(json(response)).toMatchObject({ title: expect.any(String), detail: expect.any(String) });
    expect(harness.writes()).toBe(before);
  });

  it('creates a deleted transport resource again, continuing its versions', async () => {
    await put('truck-again', truckBody());
    await remove('truck-again');
    const response = await put('truck-again', truckBody());
    expect(response.statusCode).toBe(201);
    expect(json(response)).toMatchObject({ version: 3 });
  });
});

describe('tenants', () => {
  it("never shows, changes or deletes another tenant's transport resource", async () => {
    const bob = await harness.as('tenant-b');
    await put('shared-truck', truckBody({ labels: ['a'] }));
    expect((await get('shared-truck', bob)).statusCode).toBe(404);
    expect((await remove('shared-truck', bob)).statusCode).toBe(404);
    // a conditional delete tells B no more than it would of an id no tenant uses
    const conditional = await remove('shared-truck', { ...bob, 'if-match': 'W/"1"' });
    expect(conditional.statusCode).toBe((await remove('unused-by-all', { ...bob, 'if-match': 'W/"1"' })).statusCode);
    expect(json(await get('shared-truck'))).toMatchObject({ labels: ['a'], version: 1 });
    const list = await harness.app.inject({ method: 'GET', url: `${BASE}/transport-resource`, headers: bob });
    expect(json(list)).toEqual({ transport_resources: [], cursors: {} });

    const created = await harness.app.inject({
      method: 'PUT',
      url: `${BASE}/transport-resource/shared-truck`,
      headers: bob,
      payload: truckBody({ labels: ['b'] }),
    });
    expect(created.statusCode).toBe(201);
    expect(json(await get('shared-truck'))).toMatchObject({ labels: ['a'], version: 1 });
    expect(json(await get('shared-truck', bob))).toMatchObject({ labels: ['b'], version: 1 });
  });
});

describe('authentication', () => {
  it('answers 401 without a token, with WWW-Authenticate and no body fields', async () => {
    const response = await harness.app.inject({ method: 'GET', url: `${BASE}/transport-resource/truck-1` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.body).toBe('');
  });
});
