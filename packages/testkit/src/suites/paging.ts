import { beforeAll, describe, expect, it } from 'vitest';
import { useWorld } from '../service-helpers.js';
import { expectProblem, json, type Headers, type ServiceUnderTest } from './service-under-test.js';

export interface PagingOptions<Service extends ServiceUnderTest> {
  /** Starts the service once for the suite; the suite closes it after the file's tests. */
  start(): Promise<Service>;
  /** A valid body for each of the five ids (any valid body serves the others the suite writes). */
  body(id: string): object;
  /** What the list shows of each of the five, written once. */
  listed(id: string): object;
  /** The list's URL; its resources live at `${path}/${id}`. */
  path: string;
  /** The page's property that holds the resources, e.g. `home_bases`. */
  listProperty: string;
  /** Five ids in list order (@rm/store's inListOrder). */
  ids: string[];
  /** @rm/store's list order, passed in because the store's own tests use testkit. */
  listOrder: {
    inListOrder(keys: readonly string[]): string[];
    keyBetween(prefix: string, after: string | undefined, before: string | undefined): string;
  };
}

type Cursors = { self?: string; next?: string; prev?: string };

/**
 * The cursor paging every list route shares, described as `route` (e.g. `GET /home-base`): list order,
 * cursors forwards and back, limits, refused cursors, stable pages while others write. Returns the
 * started service, for the route's own tests.
 */
export function describePaging<Service extends ServiceUnderTest>(route: string, options: PagingOptions<Service>): { service(): Service } {
  const { path, listProperty, ids } = options;
  const { inListOrder, keyBetween } = options.listOrder;
  const { world: service } = useWorld(options.start);
  let owner: Headers;

  const put = (id: string, payload: object, headers = owner, extra: Headers = {}) =>
    service.app.inject({ method: 'PUT', url: `${path}/${id}`, headers: { ...headers, ...extra }, payload });
  const remove = (id: string) => service.app.inject({ method: 'DELETE', url: `${path}/${id}`, headers: owner });
  const anyBody = () => options.body(ids[0]!);
  const at = (cursor: string | undefined) => `cursor=${encodeURIComponent(cursor ?? '')}`;

  async function list(query: string, headers = owner) {
    const response = await service.app.inject({ method: 'GET', url: `${path}${query}`, headers });
    const page = json<Record<string, unknown> & { cursors: Cursors }>(response);
    const items = (page[listProperty] ?? []) as { business_id: string }[];
    return { status: response.statusCode, response, page, items, ids: items.map((item) => item.business_id), cursors: page.cursors };
  }

  beforeAll(async () => {
    owner = await service.as('tenant-paging');
    // written against list order: lists read by position, not in the order of writing
    for (const id of [...ids].reverse()) expect((await put(id, options.body(id))).statusCode).toBe(201);
  });

  describe(route, () => {
    it(`returns the full resources under ${listProperty} in list order, and a page of 100 by default`, async () => {
      const { status, page, items, cursors } = await list('');
      expect(status).toBe(200);
      expect(Object.keys(page).sort()).toEqual(['cursors', listProperty].sort());
      expect(items).toEqual(ids.map((id) => options.listed(id)));
      expect(cursors).toEqual({ self: expect.any(String) });
    });

    it('pages forwards with next cursors and back with prev; the first page has no prev, the last no next', async () => {
      const first = await list('?limit=2');
      expect(first.status).toBe(200);
      expect(first.ids).toEqual([ids[0], ids[1]]);
      expect(first.cursors).toEqual({ self: expect.any(String), next: expect.any(String) });

      const second = await list(`?limit=2&${at(first.cursors.next)}`);
      expect(second.ids).toEqual([ids[2], ids[3]]);
      expect(second.cursors).toEqual({ self: expect.any(String), next: expect.any(String), prev: expect.any(String) });

      const third = await list(`?limit=2&${at(second.cursors.next)}`);
      expect(third.ids).toEqual([ids[4]]);
      expect(third.cursors).toEqual({ self: expect.any(String), prev: expect.any(String) });

      const back = await list(`?limit=2&${at(third.cursors.prev)}`);
      expect(back.ids).toEqual([ids[2], ids[3]]);
      const front = await list(`?limit=2&${at(back.cursors.prev)}`);
      expect(front.ids).toEqual([ids[0], ids[1]]);
      expect(front.cursors.prev).toBeUndefined();
      expect((await list(`?limit=2&${at(second.cursors.self)}`)).ids).toEqual([ids[2], ids[3]]);
    });

    it('accepts a limit of 1 and of 1000, and refuses one outside 1 to 1000 or malformed, naming limit', async () => {
      const one = await list('?limit=1');
      expect(one.status).toBe(200);
      expect(one.ids).toEqual([ids[0]]);
      const thousand = await list('?limit=1000');
      expect(thousand.status).toBe(200);
      expect(thousand.ids).toEqual(ids);
      expect(thousand.cursors.next).toBeUndefined();
      for (const limit of ['0', '1001', '-1', 'ten', '2.5', '']) {
        const { response } = await list(`?limit=${limit}`);
        expect(expectProblem(response).map((violation) => violation.field), limit).toEqual(['limit']);
      }
    });

    it('gives no next cursor on a last page that is exactly full, and no prev on a first page reached through a cursor', async () => {
      const full = await list('?limit=5');
      expect(full.ids).toEqual(ids);
      expect(full.cursors).toEqual({ self: expect.any(String) });

      const first = await list('?limit=3');
      const last = await list(`?limit=3&${at(first.cursors.next)}`);
      expect(last.ids).toEqual([ids[3], ids[4]]);
      const backToFirst = await list(`?limit=3&${at(last.cursors.prev)}`);
      expect(backToFirst.ids).toEqual([ids[0], ids[1], ids[2]]);
      expect(backToFirst.cursors).toEqual({ self: expect.any(String), next: expect.any(String) });
    });

    it('answers an empty list without cursors to a tenant with none', async () => {
      const { status, page } = await list('', await service.as('tenant-empty'));
      expect(status).toBe(200);
      expect(page).toEqual({ [listProperty]: [], cursors: {} });
    });

    it("refuses a tampered cursor, another tenant's and one that is no cursor, naming cursor", async () => {
      const cursor = (await list('?limit=2')).cursors.next!;
      const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
      for (const [query, headers] of [
        [`?${at(tampered)}`, owner],
        [`?${at(cursor)}`, await service.as('tenant-other')],
        ['?cursor=not-a-cursor', owner],
      ] as const) {
        expect(expectProblem((await list(query, headers)).response), query).toEqual([{ field: 'cursor', message: expect.any(String) }]);
      }
    });

    it('pages through ids of 512 characters with cursors of at most 2048 that stay usable', async () => {
      const headers = await service.as('tenant-long-ids');
      const longIds = inListOrder(['a', 'b', 'c'].map((letter) => letter.repeat(512)));
      for (const id of longIds) expect((await put(id, anyBody(), headers)).statusCode).toBe(201);
      const first = await list('?limit=1', headers);
      expect(first.ids).toEqual([longIds[0]]);
      const second = await list(`?limit=1&${at(first.cursors.next)}`, headers);
      expect(second.status).toBe(200);
      expect(second.ids).toEqual([longIds[1]]);
      for (const cursor of Object.values(second.cursors)) expect(cursor.length).toBeLessThanOrEqual(2048);
      expect((await list(`?limit=1&${at(second.cursors.prev)}`, headers)).ids).toEqual([longIds[0]]);
      const third = await list(`?limit=1&${at(second.cursors.next)}`, headers);
      expect(third.ids).toEqual([longIds[2]]);
      expect(third.cursors.next).toBeUndefined();
    });

    it('keeps the next page when a resource is created before its cursor meanwhile', async () => {
      const first = await list('?limit=2');
      const before = keyBetween('before', ids[0], ids[1]);
      expect((await put(before, anyBody())).statusCode).toBe(201);
      expect((await list('?limit=3')).ids).toEqual([ids[0], before, ids[1]]);
      expect((await list(`?limit=2&${at(first.cursors.next)}`)).ids).toEqual([ids[2], ids[3]]);
      expect((await remove(before)).statusCode).toBe(204);
    });

    it('shows on the next page what was written after the first page was read, and leaves deleted resources out', async () => {
      const first = await list('?limit=2');
      const written = keyBetween('after', ids[2], ids[3]);
      expect((await put(written, anyBody())).statusCode).toBe(201);
      expect((await list(`?limit=2&${at(first.cursors.next)}`)).ids).toEqual([ids[2], written]);
      expect((await remove(written)).statusCode).toBe(204);
      expect((await list(`?limit=2&${at(first.cursors.next)}`)).ids).toEqual([ids[2], ids[3]]);
      expect((await list('?limit=1000')).ids).toEqual(ids);
    });

    it('pages through more than one full page of 100', async () => {
      const headers = await service.as('tenant-many');
      const many = inListOrder(Array.from({ length: 150 }, (_, index) => `m${String(index).padStart(3, '0')}`));
      for (const id of many) expect((await put(id, anyBody(), headers, { prefer: 'return=minimal' })).statusCode).toBe(204);
      const first = await list('', headers);
      expect(first.ids).toEqual(many.slice(0, 100));
      const second = await list(`?${at(first.cursors.next)}`, headers);
      expect(second.ids).toEqual(many.slice(100));
      expect(second.cursors.next).toBeUndefined();
      expect((await list('?limit=1000', headers)).ids).toEqual(many);
    });
  });

  return { service: () => service };
}
