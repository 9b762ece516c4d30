import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startSilentServer } from '../silent-server.js';
import { uniqueName } from '../unique-name.js';
import { waitFor } from '../wait-for.js';
import { BASE, useWorld } from '../service-helpers.js';
import { expectProblemWithStatus, json, type Body, type Headers, type InjectedResponse, type InjectableApp, type Method, type Violation } from './service-under-test.js';

// Writes that name home bases (the claims of @rm/service-kit/resources), against a real home-bases
// service beside the service: the home bases must exist in the caller's tenant, and while something
// names one it cannot be deleted. The helpers are exported for a service's own writes that name them.

/** What the suite needs of a harness (startServiceHarnessWithHomeBases gives it). */
export interface HomeBasesHarness {
  app: InjectableApp;
  /** The home-bases service beside it: closing it takes that service down. */
  homeBases: InjectableApp & { close(): Promise<unknown> };
  writes(): number;
  as(tenant: string): Promise<Headers>;
  createHomeBases(tenant: string, ...ids: string[]): Promise<void>;
  close(): Promise<void>;
}

interface Referrer {
  entity: string;
  id: string;
}
interface InUse {
  status: number;
  detail: string;
  referrers: (Referrer & { pending?: true })[];
  referrers_total: number;
}

export const fresh = (prefix: string) => `${prefix}-${randomUUID()}`;
export const doesNotExist = (field: string, id: string): Violation => ({ field, message: `home base '${id}' does not exist` });

/** A 400 with exactly these violations, in any order. */
export function expectRefused(response: InjectedResponse, violations: Violation[]): void {
  const byField = (a: Violation, b: Violation) => a.field.localeCompare(b.field);
  const refused = expectProblemWithStatus<{ violations: Violation[] }>(response, 400);
  expect(refused.violations.toSorted(byField)).toEqual(violations.toSorted(byField));
}

export type HomeBasesApi = ReturnType<typeof useHomeBasesHarness>;

/**
 * A harness for the tests of the describe block this is called in, and the requests of one tenant to
 * it (paths below BASE) and to its home-bases service.
 */
export function useHomeBasesHarness(start: () => Promise<HomeBasesHarness>, tenant: string) {
  const { world: harness } = useWorld(start);
  let headers: Headers;
  beforeAll(async () => {
    headers = await harness.as(tenant);
  });

  const homeBaseUrl = (id: string) => `${BASE}/home-base/${id}`;
  const deleteHomeBase = (id: string) => harness.homeBases.inject({ method: 'DELETE', url: homeBaseUrl(id), headers });
  const getHomeBase = (id: string) => harness.homeBases.inject({ method: 'GET', url: homeBaseUrl(id), headers });

  /** The DELETE of a home base that something names: a problem+json 409 listing what does. */
  async function refusedDelete(id: string): Promise<InUse> {
    const inUse = expectProblemWithStatus<InUse>(await deleteHomeBase(id), 409);
    expect(inUse.status).toBe(409);
    return inUse;
  }

  return {
    harness: () => harness,
    /** A request as the tenant; `extra` headers replace its own (another tenant's token). */
    send: (method: Method, path: string, payload?: Body, extra: Headers = {}) =>
      harness.app.inject({ method, url: `${BASE}${path}`, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload }) }),
    /** Fresh home bases of the tenant (or of `inTenant`), by id. */
    async homeBases(count: number, inTenant = tenant): Promise<string[]> {
      const ids = Array.from({ length: count }, () => fresh('hb'));
      await harness.createHomeBases(inTenant, ...ids);
      return ids;
    },
    deleteHomeBase,
    getHomeBase,
    refusedDelete,
    /** Waits until the home base's reference index holds exactly these referrers, from their events (no longer pending claims alone). */
    async indexed(homeBaseId: string, ...referrers: Referrer[]): Promise<void> {
      const count = referrers.length;
      await waitFor(`${count} referrers in the reference index of ${homeBaseId}`, async () => {
        const body = await refusedDelete(homeBaseId);
        return body.referrers_total === count && body.referrers.length === count && body.referrers.every((referrer) => referrer.pending === undefined);
      });
      const byId = (a: Referrer, b: Referrer) => a.id.localeCompare(b.id);
      const body = await refusedDelete(homeBaseId);
      expect(body.referrers_total).toBe(count);
      expect(body.referrers.toSorted(byId)).toEqual(referrers.toSorted(byId));
    },
    /** Waits until nothing names the home base any more, deletes it and sees it gone. */
    async deletedOnceFree(id: string): Promise<void> {
      await waitFor(`the delete of home base ${id}`, async () => {
        const response = await deleteHomeBase(id);
        if (response.statusCode !== 204) expectProblemWithStatus(response, 409);
        return response.statusCode === 204;
      });
      expect((await getHomeBase(id)).statusCode).toBe(404);
    },
  };
}

/** As useHomeBasesHarness, with the home-bases service down once it holds one home base of the tenant, `known()`. */
export function useHomeBasesDown(start: () => Promise<HomeBasesHarness>, tenant: string) {
  const api = useHomeBasesHarness(start, tenant);
  let known: string;
  beforeAll(async () => {
    [known] = (await api.homeBases(1)) as [string];
    // it stops listening: the service cannot reach it any more
    await api.harness().homeBases.close();
  });
  return { ...api, known: () => known };
}

export interface HomeBaseReferencesOptions {
  /** Starts the service with a home-bases service of its own beside it; `variables` add to its environment. */
  start(variables?: Record<string, string>): Promise<HomeBasesHarness>;
  /** The resource whose body may name a home base at `home_base` instead of an ad-hoc start location. */
  resource: {
    /** Its path segment, also its entity among a home base's referrers: 'employee'. */
    name: string;
    /** A valid body at an ad-hoc start location, with `overrides`. */
    body(overrides?: Body): Body;
    /** What a read shows beyond the body, id and version: the defaults of fields a body leaves out. */
    defaults?: Body;
    /** Overrides that name a home base as the caller's own data, which is no reference (custom_data). */
    ownData?(homeBaseId: string): Body;
  };
}

/** Declares the tests of a resource's PUT that names a home base, against a service of its own for each state of the home-bases service. */
export function describeHomeBaseReferences({ start, resource }: HomeBaseReferencesOptions): void {
  const { name, ownData } = resource;
  /** The resource at a home base instead of an ad-hoc start location. */
  const at = (homeBaseId: string, overrides: Body = {}): Body => {
    const { start_location: _omitted, ...body } = resource.body(overrides);
    return { ...body, home_base: { business_id: homeBaseId } };
  };
  /** What a GET shows of the resource written with `body`. */
  const shown = (id: string, body: Body, version: number) => ({ business_id: id, ...body, ...resource.defaults, version });
  const unknown = (id: string) => [doesNotExist('home_base.business_id', id)];
  const resourceRequests = (api: Pick<HomeBasesApi, 'send'>) => ({
    put: (id: string, body: Body, extra: Headers = {}) => api.send('PUT', `/${name}/${id}`, body, extra),
    get: (id: string) => api.send('GET', `/${name}/${id}`),
    remove: (id: string) => api.send('DELETE', `/${name}/${id}`),
  });

  describe(`PUT /${name}/{id} naming a home base`, () => {
    describe('with the home-bases service up', () => {
      const api = useHomeBasesHarness(start, uniqueName('hb-refs'));
      const other = uniqueName('hb-other');
      const { put, get, remove } = resourceRequests(api);

      describe('a PUT naming a home base that does not exist', () => {
        it('is refused with a problem+json 400 on home_base.business_id, and creates nothing', async () => {
          const [id, missing] = [fresh(name), fresh('hb')];
          const before = api.harness().writes();
          expectRefused(await put(id, at(missing)), unknown(missing));
          expect((await get(id)).statusCode).toBe(404);
          expect(api.harness().writes()).toBe(before);
        });

        it(`is refused for an existing ${name}, which stays unchanged`, async () => {
          const id = fresh(name);
          expect((await put(id, resource.body())).statusCode).toBe(201);
          const read = json(await get(id));
          const missing = fresh('hb');
          const before = api.harness().writes();
          expectRefused(await put(id, at(missing, { labels: ['moved'] })), unknown(missing));
          expect(json(await get(id))).toEqual(read);
          expect(api.harness().writes()).toBe(before);
        });

        it('counts a home base of another tenant as unknown', async () => {
          const [theirs] = (await api.homeBases(1, other)) as [string];
          const id = fresh(name);
          expectRefused(await put(id, at(theirs)), unknown(theirs));
          expect((await get(id)).statusCode).toBe(404);
          // the other tenant may name it
          const theirResource = await put(id, at(theirs), await api.harness().as(other));
          expect(theirResource.statusCode, theirResource.body).toBe(201);
          expect((await get(id)).statusCode).toBe(404);
        });

        it('counts a deleted home base as unknown', async () => {
          const [gone] = (await api.homeBases(1)) as [string];
          expect((await api.deleteHomeBase(gone)).statusCode).toBe(204);
          const id = fresh(name);
          const before = api.harness().writes();
          expectRefused(await put(id, at(gone)), unknown(gone));
          expect((await get(id)).statusCode).toBe(404);
          expect(api.harness().writes()).toBe(before);
        });
      });

      describe('a PUT naming a home base that exists', () => {
        it(`creates and updates the ${name} at it, and shows it`, async () => {
          const [first, second] = (await api.homeBases(2)) as [string, string];
          const id = fresh(name);
          const created = await put(id, at(first));
          expect(created.statusCode, created.body).toBe(201);
          expect(json(created)).toEqual(shown(id, at(first), 1));
          const updated = await put(id, at(second));
          expect(updated.statusCode, updated.body).toBe(200);
          expect(json(await get(id))).toEqual(shown(id, at(second), 2));
        });

        if (ownData !== undefined) {
          it("takes home bases in the caller's own data, not as references", async () => {
            const id = fresh(name);
            const body = resource.body(ownData(fresh('hb')));
            const response = await put(id, body);
            expect(response.statusCode, response.body).toBe(201);
            expect(json(await get(id))).toEqual(shown(id, body, 1));
          });
        }
      });

      describe(`a home base named by ${name}s`, () => {
        it(`cannot be deleted while the ${name} is at it, and can once it moved away`, async () => {
          const [home] = (await api.homeBases(1)) as [string];
          const id = fresh(name);
          expect((await put(id, at(home))).statusCode).toBe(201);
          // the claim blocks it at once, before the resource's event arrives
          const refused = await api.refusedDelete(home);
          expect(refused.referrers).toContainEqual(expect.objectContaining({ entity: name, id }));
          expect(refused.referrers_total).toBeGreaterThanOrEqual(1);
          expect(refused.detail).toContain(home);
          await api.indexed(home, { entity: name, id });
          expect((await api.getHomeBase(home)).statusCode).toBe(200);

          expect((await put(id, resource.body())).statusCode).toBe(200);
          await api.deletedOnceFree(home);
        });

        it(`lists every ${name} at it, and can be deleted once they are deleted`, async () => {
          const [home] = (await api.homeBases(1)) as [string];
          const [a, b] = [fresh(name), fresh(name)];
          expect((await put(a, at(home))).statusCode).toBe(201);
          expect((await put(b, at(home))).statusCode).toBe(201);
          await api.indexed(home, { entity: name, id: a }, { entity: name, id: b });

          expect((await remove(a)).statusCode).toBe(204);
          await api.indexed(home, { entity: name, id: b });
          expect((await remove(b)).statusCode).toBe(204);
          await api.deletedOnceFree(home);
        });

        it('can be deleted at once after a PUT naming it was refused for another reason: its claim is dropped', async () => {
          const [home] = (await api.homeBases(1)) as [string];
          const before = api.harness().writes();
          // a stale If-Match on a new resource
          expect((await put(fresh(name), at(home), { 'if-match': 'W/"9"' })).statusCode).toBe(412);
          expect(api.harness().writes()).toBe(before);
          expect((await api.deleteHomeBase(home)).statusCode).toBe(204);
        });
      });
    });

    describe('with a home-bases service that does not answer', () => {
      const { world: silent } = useWorld(startSilentServer);
      const api = useHomeBasesHarness(() => start({ HOME_BASES_URL: silent.url, HOME_BASES_TIMEOUT_MS: '500' }), uniqueName('hb-silent'));
      const { put, get } = resourceRequests(api);

      it('refuses a PUT naming a home base with a problem+json 503 once HOME_BASES_TIMEOUT_MS has passed, and writes nothing', async () => {
        const id = fresh(name);
        const before = api.harness().writes();
        const started = Date.now();
        expectProblemWithStatus(await put(id, at(fresh('hb'))), 503);
        // the timeout, not a refused connection; and not the default 5 s
        expect(Date.now() - started).toBeGreaterThanOrEqual(450);
        expect(Date.now() - started).toBeLessThan(3_000);
        expect((await get(id)).statusCode).toBe(404);
        expect(api.harness().writes()).toBe(before);
      });
    });

    describe('with the home-bases service down', () => {
      const api = useHomeBasesDown(start, uniqueName('hb-down'));
      const { put, get } = resourceRequests(api);

      it('still takes PUTs that name no home base', async () => {
        expect((await put(fresh(name), resource.body())).statusCode).toBe(201);
        if (ownData !== undefined) expect((await put(fresh(name), resource.body(ownData(api.known())))).statusCode).toBe(201);
      });

      it('refuses a PUT naming a home base with a problem+json 503, and writes nothing', async () => {
        const [id, existing] = [fresh(name), fresh(name)];
        expect((await put(existing, resource.body())).statusCode).toBe(201);
        const before = api.harness().writes();
        expectProblemWithStatus(await put(id, at(api.known())), 503);
        expectProblemWithStatus(await put(existing, at(api.known())), 503);
        expect(api.harness().writes()).toBe(before);
        expect((await get(id)).statusCode).toBe(404);
        expect(json(await get(existing))).toEqual(shown(existing, resource.body(), 1));
      });
    });
  });
}
