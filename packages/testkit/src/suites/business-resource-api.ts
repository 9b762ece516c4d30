import { beforeAll, describe, expect, it } from 'vitest';
import { useWorld } from '../service-helpers.js';
import type { TestServiceEnv } from '../test-service-env.js';
import { expectProblem, expectProblemWithStatus, json, type Headers, type InjectedResponse, type ServiceUnderTest, type Body } from './service-under-test.js';

/** A started service as the suite reads it: its committed writes, and tokens of its test issuer. */
type ResourceService = ServiceUnderTest & { writes(): number; env: Pick<TestServiceEnv, 'bearer'> };

export interface BusinessResourceApiOptions<Service extends ResourceService> {
  /** Starts the service once for the file; the suite closes it after the file's tests. */
  start(): Promise<Service>;
  /** The URL of the resource's list; a resource lives at `${path}/${id}`. */
  path: string;
  /** The page's property that holds the resources, e.g. `home_bases`. */
  listProperty: string;
  /** The n-th of many valid bodies, each unlike the others. */
  body(n: number): Body;
  /** What a read shows of `body` stored under `id` at `version`: the body with the id, the version and any defaults filled in. */
  shown(id: string, body: Body, version: number): Body;
}

/** The tenant the suite writes in; the file's own tests may write there too. */
const OWNER = 'tenant-a';

/** The same JSON value with the keys of every object in reverse order. */
function withKeysReversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withKeysReversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, inner]) => [key, withKeysReversed(inner)]));
}

/** Checks a problem of `status` that names `id` in its detail and, being no 400, has no violations. */
function expectProblemNaming(status: number, response: InjectedResponse, id: string): void {
  expect(expectProblemWithStatus(response, status, { detail: expect.stringContaining(id) })).not.toHaveProperty('violations');
}

/**
 * The API every top-level business resource shares (service-kit's businessResourceRoutes), described
 * for `route` (e.g. `/home-base/{home_base_id}`): create, update and read with versions and ETags, Prefer,
 * Location, If-Match, delete and re-creation, 404s, tenants kept apart, authentication. Returns the
 * started service and requests as the suite's tenant, for the resource's own tests.
 */
export function describeBusinessResourceApi<Service extends ResourceService>(route: string, options: BusinessResourceApiOptions<Service>) {
  const { path, body, shown } = options;
  const { world: service } = useWorld(options.start);
  let owner: Headers;

  beforeAll(async () => {
    owner = await service.as(OWNER);
  });

  /** Requests as the suite's tenant; `headers` add to its own or, with another authorization, replace them. */
  const put = (id: string, payload: object, headers: Headers = {}) =>
    service.app.inject({ method: 'PUT', url: `${path}/${id}`, headers: { ...owner, ...headers }, payload });
  const get = (id: string, headers: Headers = {}) => service.app.inject({ method: 'GET', url: `${path}/${id}`, headers: { ...owner, ...headers } });
  const remove = (id: string, headers: Headers = {}) =>
    service.app.inject({ method: 'DELETE', url: `${path}/${id}`, headers: { ...owner, ...headers } });

  describe(`PUT ${route}`, () => {
    it('creates the resource: 201 with what a read shows, version 1, ETag, Location and Preference-Applied', async () => {
      const response = await put('created', body(0), { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' });
      expect(response.statusCode).toBe(201);
      expect(json(response)).toEqual(shown('created', body(0), 1));
      expect(response.headers.etag).toBe('W/"1"');
      expect(response.headers.location).toBe(`https://api.example.com${path}/created`);
      expect(response.headers['preference-applied']).toBe('return=representation');
      expect(response.headers.vary).toContain('Prefer');
    });

    it('updates it: 200 and the version grows by one', async () => {
      await put('updated', body(0));
      const response = await put('updated', body(1));
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual(shown('updated', body(1), 2));
      expect(response.headers.etag).toBe('W/"2"');
      expect(json(await get('updated'))).toEqual(shown('updated', body(1), 2));
    });

    it('keeps the version and writes nothing for an unchanged body: sent back from a GET, as first sent, or in another key order', async () => {
      await put('unchanged', body(0));
      const read = json(await get('unchanged'));
      const before = service.writes();
      const response = await put('unchanged', read);
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBe('W/"1"');
      expect(json(response)).toEqual(read);
      for (const same of [body(0), withKeysReversed(body(0)) as Body]) expect((await put('unchanged', same)).headers.etag).toBe('W/"1"');
      expect(service.writes()).toBe(before);
    });

    it('answers 204 without a body for Prefer: return=minimal, with the write headers', async () => {
      const minimal = { prefer: 'return=minimal' };
      const created = await put('minimal', body(0), minimal);
      expect(created.statusCode).toBe(204);
      expect(created.body).toBe('');
      expect(created.headers.etag).toBe('W/"1"');
      expect(created.headers['preference-applied']).toBe('return=minimal');
      expect(created.headers.location).toMatch(new RegExp(`^http://[^/]+${path}/minimal$`));

      const updated = await put('minimal', body(1), minimal);
      expect(updated.statusCode).toBe(204);
      expect(updated.body).toBe('');
      expect(updated.headers.etag).toBe('W/"2"');
      expect(json(await get('minimal'))).toEqual(shown('minimal', body(1), 2));
    });

    it('ignores the read-only business_id and version in the body', async () => {
      const response = await put('read-only', { ...body(0), business_id: 'someone-else', version: 42 });
      expect(response.statusCode).toBe(201);
      expect(json(response)).toEqual(shown('read-only', body(0), 1));
      expect((await get('someone-else')).statusCode).toBe(404);

      const again = await put('read-only', { ...body(1), business_id: 'other', version: 1 });
      expect(json(again)).toEqual(shown('read-only', body(1), 2));
    });

    it('accepts every character of the business id pattern and 512 characters', async () => {
      for (const id of ['A.b~c-d_9', 'x'.repeat(512)]) {
        expect((await put(id, body(0))).statusCode).toBe(201);
        expect(json(await get(id))).toEqual(shown(id, body(0), 1));
      }
    });
  });

  describe('If-Match on PUT and DELETE', () => {
    it('writes with the current version or *, and answers 412 to a stale one, changing nothing', async () => {
      await put('matched', body(0));
      const matching = await put('matched', body(1), { 'if-match': 'W/"1"' });
      expect(matching.statusCode).toBe(200);
      expect(matching.headers.etag).toBe('W/"2"');
      expect((await put('matched', body(2), { 'if-match': '*' })).statusCode).toBe(200);

      const before = service.writes();
      expectProblemNaming(412, await put('matched', body(3), { 'if-match': 'W/"1"' }), 'matched');
      expect(service.writes()).toBe(before);
      expect(json(await get('matched'))).toEqual(shown('matched', body(2), 3));
    });

    it('answers 412 to a stale If-Match even when the body is unchanged, and 200 keeping the version to the current one', async () => {
      await put('matched-unchanged', body(0));
      await put('matched-unchanged', body(1));
      expect((await put('matched-unchanged', body(1), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
      const current = await put('matched-unchanged', body(1), { 'if-match': 'W/"2"' });
      expect(current.statusCode).toBe(200);
      expect(current.headers.etag).toBe('W/"2"');
    });

    it('matches any of several entity tags in If-Match', async () => {
      await put('matched-list', body(0));
      const response = await put('matched-list', body(1), { 'if-match': 'W/"5", W/"1"' });
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBe('W/"2"');
    });

    it('answers 412 to an If-Match on a resource that does not exist, and creates nothing', async () => {
      const before = service.writes();
      for (const ifMatch of ['W/"1"', '*']) expectProblemNaming(412, await put('absent', body(0), { 'if-match': ifMatch }), 'absent');
      expect((await get('absent')).statusCode).toBe(404);
      expect(service.writes()).toBe(before);
    });

    it('answers 412 to an If-Match on a deleted resource, even with the version of its deletion', async () => {
      await put('tombstone', body(0));
      expect((await remove('tombstone')).statusCode).toBe(204);
      for (const ifMatch of ['W/"2"', 'W/"1"', '*']) {
        expect((await put('tombstone', body(0), { 'if-match': ifMatch })).statusCode).toBe(412);
        expect([404, 412]).toContain((await remove('tombstone', { 'if-match': ifMatch })).statusCode);
      }
      expect((await get('tombstone')).statusCode).toBe(404);
    });

    it('deletes only with the current version, refusing an older one and one it never had', async () => {
      await put('delete-matched', body(0));
      await put('delete-matched', body(1));
      const before = service.writes();
      for (const ifMatch of ['W/"1"', 'W/"7"']) expectProblemNaming(412, await remove('delete-matched', { 'if-match': ifMatch }), 'delete-matched');
      expect(service.writes()).toBe(before);
      expect((await get('delete-matched')).statusCode).toBe(200);
      expect((await remove('delete-matched', { 'if-match': 'W/"2"' })).statusCode).toBe(204);
      expect((await get('delete-matched')).statusCode).toBe(404);
    });

    it('refuses a malformed If-Match with a violation on the header', async () => {
      await put('malformed-match', body(0));
      expect(expectProblem(await put('malformed-match', body(1), { 'if-match': 'version 3' }))).toEqual([
        { field: 'If-Match', message: expect.any(String) },
      ]);
    });
  });

  describe(`GET and DELETE ${route}`, () => {
    it('reads the resource with its ETag', async () => {
      await put('read', body(0));
      const response = await get('read');
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBe('W/"1"');
      expect(json(response)).toEqual(shown('read', body(0), 1));
    });

    it('answers 404 with a problem naming a missing resource', async () => {
      expectProblemNaming(404, await get('no-such-resource'), 'no-such-resource');
    });

    it('deletes with an empty 204, after which it is gone and a second delete is a 404 problem', async () => {
      await put('deleted', body(0));
      const response = await remove('deleted');
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect((await get('deleted')).statusCode).toBe(404);
      expectProblemNaming(404, await remove('deleted'), 'deleted');
    });

    it('answers 404 to a delete of a resource that never existed, writing nothing', async () => {
      const before = service.writes();
      expectProblemNaming(404, await remove('never-there'), 'never-there');
      expect(service.writes()).toBe(before);
    });

    it('creates a deleted resource again, continuing its versions', async () => {
      await put('again', body(0));
      await remove('again');
      const response = await put('again', body(0));
      expect(response.statusCode).toBe(201);
      expect(json(response)).toEqual(shown('again', body(0), 3));
    });
  });

  describe('tenants', () => {
    it("never shows, changes or deletes another tenant's resource, nor lists it", async () => {
      const other = await service.as('tenant-b');
      await put('shared', body(0));
      expect((await get('shared', other)).statusCode).toBe(404);
      expect((await remove('shared', other)).statusCode).toBe(404);
      expect((await put('shared', body(1), { ...other, 'if-match': 'W/"1"' })).statusCode).toBe(412);
      // a conditional delete tells the other tenant no more than it would of an id no tenant uses
      const conditional = await remove('shared', { ...other, 'if-match': 'W/"1"' });
      expect(conditional.statusCode).toBe((await remove('unused-by-all', { ...other, 'if-match': 'W/"1"' })).statusCode);
      expect(json(await service.app.inject({ method: 'GET', url: path, headers: other }))).toEqual({ [options.listProperty]: [], cursors: {} });
      expect(json(await get('shared'))).toEqual(shown('shared', body(0), 1));
    });

    it("keeps another tenant's resource under the same id apart, with versions of its own", async () => {
      const other = await service.as('tenant-b');
      await put('same-id', body(0));
      const own = await put('same-id', body(1), other);
      expect(own.statusCode).toBe(201);
      expect(json(own)).toEqual(shown('same-id', body(1), 1));
      expect(json(await get('same-id', other))).toEqual(shown('same-id', body(1), 1));
      expect(json(await get('same-id'))).toEqual(shown('same-id', body(0), 1));
      expect((await remove('same-id', other)).statusCode).toBe(204);
      expect(json(await get('same-id'))).toEqual(shown('same-id', body(0), 1));
    });
  });

  describe('authentication', () => {
    it('answers 401 without a token, with WWW-Authenticate and no body', async () => {
      const response = await service.app.inject({ method: 'GET', url: `${path}/created`, headers: {} });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(response.body).toBe('');
    });

    it('answers 401 invalid_token to an expired token', async () => {
      const response = await get('created', await service.env.bearer(OWNER, { expiresInSeconds: -60 }));
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    });
  });

  return {
    service: () => service,
    /** The tenant the suite and `put`/`get` write and read as. */
    tenant: OWNER,
    put,
    get,
  };
}
