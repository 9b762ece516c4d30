import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, waitFor } from '@rm/testkit';
import { BASE, json, startTransportResources, truckBody, type TransportResourcesHarness } from './helpers.js';

// The writes of transport resources that name a home base, against a real home-bases service beside the
// service: the home base must exist in the caller's tenant, and while a resource names it it cannot be deleted.

type Body = Record<string, unknown>;
type Headers = Record<string, string>;
interface Violation {
  field: string;
  message: string;
}
interface InUse {
  status: number;
  detail: string;
  referrers: { entity: string; id: string; pending?: true }[];
  referrers_total: number;
}

const fresh = (prefix: string) => `${prefix}-${randomUUID()}`;
const doesNotExist = (id: string): Violation => ({ field: 'home_base.business_id', message: `home base '${id}' does not exist` });
/** A truck at a home base instead of an ad-hoc start location. */
const truckAt = (id: string, overrides: Body = {}): Body => {
  const { start_location: _omitted, ...body } = truckBody(overrides);
  return { ...body, home_base: { business_id: id } };
};
/** What a GET shows of a truck written with `body`. */
const stored = (id: string, body: Body, version: number) => ({ business_id: id, ...body, inactive: false, version });

function expectProblem(response: LightMyRequestResponse, status: number): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
}

function expectRefused(response: LightMyRequestResponse, violations: Violation[]): void {
  expectProblem(response, 400);
  expect(json<{ violations: Violation[] }>(response).violations).toEqual(violations);
}

/** The requests of one tenant to a harness, and what its home-bases service answers. */
function client(of: () => TransportResourcesHarness, headers: () => Headers, tenant: () => string) {
  const url = (id: string) => `${BASE}/transport-resource/${id}`;
  return {
    put: (id: string, body: Body, extra: Headers = {}) =>
      of().app.inject({ method: 'PUT', url: url(id), headers: { ...headers(), ...extra }, payload: body }),
    get: (id: string) => of().app.inject({ method: 'GET', url: url(id), headers: headers() }),
    remove: (id: string) => of().app.inject({ method: 'DELETE', url: url(id), headers: headers() }),
    /** Fresh home bases of the tenant (or of `inTenant`), by id. */
    homeBases: async (count: number, inTenant = tenant()) => {
      const ids = Array.from({ length: count }, () => fresh('hb'));
      await of().createHomeBases(inTenant, ...ids);
      return ids;
    },
    deleteHomeBase: (id: string) => of().homeBases.inject({ method: 'DELETE', url: `${BASE}/home-base/${id}`, headers: headers() }),
    getHomeBase: (id: string) => of().homeBases.inject({ method: 'GET', url: `${BASE}/home-base/${id}`, headers: headers() }),
  };
}

describe('with the home-bases service up', () => {
  let harness: TransportResourcesHarness;
  let headers: Headers;
  const tenant = uniqueName('hb-refs');
  const other = uniqueName('hb-other');
  const api = client(() => harness, () => headers, () => tenant);

  beforeAll(async () => {
    harness = await startTransportResources();
    headers = await harness.as(tenant);
  });

  afterAll(async () => {
    await harness?.close();
  });

  describe('a PUT naming a home base that does not exist', () => {
    it('is refused with a problem+json 400 on home_base.business_id, and creates nothing', async () => {
      const [id, missing] = [fresh('truck'), fresh('hb')];
      const before = harness.writes();
      expectRefused(await api.put(id, truckAt(missing)), [doesNotExist(missing)]);
      expect((await api.get(id)).statusCode).toBe(404);
      expect(harness.writes()).toBe(before);
    });

    it('is refused for a resource that exists, which stays unchanged', async () => {
      const id = fresh('truck');
      expect((await api.put(id, truckBody())).statusCode).toBe(201);
      const read = json(await api.get(id));
      const missing = fresh('hb');
      const before = harness.writes();
      expectRefused(await api.put(id, truckAt(missing, { labels: ['moved'] })), [doesNotExist(missing)]);
      expect(json(await api.get(id))).toEqual(read);
      expect(harness.writes()).toBe(before);
    });

    it("counts a home base of another tenant as unknown", async () => {
      const [theirs] = await api.homeBases(1, other);
      const id = fresh('truck');
      expectRefused(await api.put(id, truckAt(theirs!)), [doesNotExist(theirs!)]);
      expect((await api.get(id)).statusCode).toBe(404);
      // the other tenant may name it
      const theirTruck = await api.put(id, truckAt(theirs!), await harness.as(other));
      expect(theirTruck.statusCode, theirTruck.body).toBe(201);
      expect((await api.get(id)).statusCode).toBe(404);
    });

    it('counts a deleted home base as unknown', async () => {
      const [gone] = await api.homeBases(1);
      expect((await api.deleteHomeBase(gone!)).statusCode).toBe(204);
      const id = fresh('truck');
      const before = harness.writes();
      expectRefused(await api.put(id, truckAt(gone!)), [doesNotExist(gone!)]);
      expect((await api.get(id)).statusCode).toBe(404);
      expect(harness.writes()).toBe(before);
    });
  });

  describe('a PUT naming a home base that exists', () => {
    it('creates and updates the resource at it, and shows it', async () => {
      const [first, second] = await api.homeBases(2);
      const id = fresh('truck');
      const created = await api.put(id, truckAt(first!));
      expect(created.statusCode, created.body).toBe(201);
      expect(json(created)).toEqual(stored(id, truckAt(first!), 1));
      const updated = await api.put(id, truckAt(second!));
      expect(updated.statusCode, updated.body).toBe(200);
      expect(json(await api.get(id))).toEqual(stored(id, truckAt(second!), 2));
    });

    it('takes home bases in custom_data for the caller\'s own data, not references', async () => {
      const id = fresh('truck');
      const custom_data = { home_base: { business_id: fresh('hb') }, home_base_id: fresh('hb') };
      const response = await api.put(id, truckBody({ custom_data }));
      expect(response.statusCode, response.body).toBe(201);
      expect(json(await api.get(id))).toEqual(stored(id, truckBody({ custom_data }), 1));
    });
  });

  describe('a home base named by a transport resource', () => {
    async function refusedDelete(id: string): Promise<InUse> {
      const response = await api.deleteHomeBase(id);
      expectProblem(response, 409);
      return json<InUse>(response);
    }

    /** Waits until the home base's reference index holds the resource from its event (no longer a pending claim alone). */
    async function indexed(homeBaseId: string, referrer: { entity: string; id: string }): Promise<void> {
      await waitFor(`${referrer.entity} ${referrer.id} in the reference index of ${homeBaseId}`, async () => {
        const body = await refusedDelete(homeBaseId);
        return body.referrers_total === 1 && body.referrers.length === 1 && body.referrers[0]?.pending === undefined;
      });
      expect(await refusedDelete(homeBaseId)).toMatchObject({ status: 409, referrers: [referrer], referrers_total: 1 });
    }

    async function deletedOnceFree(id: string): Promise<void> {
      await waitFor(`the delete of home base ${id}`, async () => {
        const response = await api.deleteHomeBase(id);
        if (response.statusCode !== 204) expectProblem(response, 409);
        return response.statusCode === 204;
      });
      expect((await api.getHomeBase(id)).statusCode).toBe(404);
    }

    it('cannot be deleted while the resource is at it, and can once the resource moved away', async () => {
      const [home] = await api.homeBases(1);
      const id = fresh('truck');
      expect((await api.put(id, truckAt(home!))).statusCode).toBe(201);
      // the claim blocks it at once, before the resource's event arrives
      const refused = await refusedDelete(home!);
      expect(refused.referrers).toContainEqual(expect.objectContaining({ entity: 'transport-resource', id }));
      expect(refused.referrers_total).toBeGreaterThanOrEqual(1);
      expect(refused.detail).toContain(home);
      await indexed(home!, { entity: 'transport-resource', id });
      expect((await api.getHomeBase(home!)).statusCode).toBe(200);

      expect((await api.put(id, truckBody())).statusCode).toBe(200);
      await deletedOnceFree(home!);
    });

    it('lists every resource at it, and can be deleted once they are deleted', async () => {
      const [home] = await api.homeBases(1);
      const [a, b] = [fresh('truck'), fresh('truck')];
      expect((await api.put(a, truckAt(home!))).statusCode).toBe(201);
      expect((await api.put(b, truckAt(home!))).statusCode).toBe(201);
      await waitFor('both resources in the reference index', async () => {
        const body = await refusedDelete(home!);
        return body.referrers_total === 2 && body.referrers.every((referrer) => referrer.pending === undefined);
      });
      const refused = await refusedDelete(home!);
      const listed = refused.referrers.toSorted((x, y) => x.id.localeCompare(y.id));
      expect(listed).toEqual([a, b].sort().map((id) => ({ entity: 'transport-resource', id })));

      expect((await api.remove(a)).statusCode).toBe(204);
      await waitFor('one resource left in the reference index', async () => (await refusedDelete(home!)).referrers_total === 1);
      expect((await refusedDelete(home!)).referrers).toEqual([{ entity: 'transport-resource', id: b }]);
      expect((await api.remove(b)).statusCode).toBe(204);
      await deletedOnceFree(home!);
    });

    it('can be deleted at once after a PUT naming it was refused for another reason: its claim is dropped', async () => {
      const [home] = await api.homeBases(1);
      const before = harness.writes();
      expect((await api.put(fresh('truck'), truckAt(home!), { 'if-match': 'W/"9"' })).statusCode).toBe(412);
      expect(harness.writes()).toBe(before);
      expect((await api.deleteHomeBase(home!)).statusCode).toBe(204);
    });
  });
});

describe('with the home-bases service down', () => {
  let harness: TransportResourcesHarness;
  let headers: Headers;
  let known: string;
  const tenant = uniqueName('hb-down');
  const api = client(() => harness, () => headers, () => tenant);

  beforeAll(async () => {
    harness = await startTransportResources();
    headers = await harness.as(tenant);
    [known] = (await api.homeBases(1)) as [string];
    // it stops listening: the transport-resources service cannot reach it any more
    await harness.homeBases.close();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('still takes PUTs that name no home base, custom_data included', async () => {
    expect((await api.put(fresh('truck'), truckBody())).statusCode).toBe(201);
    const custom_data = { home_base: { business_id: known } };
    expect((await api.put(fresh('truck'), truckBody({ custom_data }))).statusCode).toBe(201);
  });

  it('refuses a PUT naming a home base with a problem+json 503, and writes nothing', async () => {
    const [id, existing] = [fresh('truck'), fresh('truck')];
    expect((await api.put(existing, truckBody())).statusCode).toBe(201);
    const read = json(await api.get(existing));
    const before = harness.writes();
    expectProblem(await api.put(id, truckAt(known)), 503);
    expectProblem(await api.put(existing, truckAt(known)), 503);
    expect(harness.writes()).toBe(before);
    expect((await api.get(id)).statusCode).toBe(404);
    expect(json(await api.get(existing))).toEqual(read);
  });
});
