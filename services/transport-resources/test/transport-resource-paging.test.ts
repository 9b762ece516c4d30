import { inListOrder, keyBetween } from '@rm/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, json, startTransportResources, truckBody, type TransportResourcesHarness } from './helpers.js';

interface Page {
  transport_resources: { business_id: string }[];
  cursors: { self?: string; next?: string; prev?: string };
}

let harness: TransportResourcesHarness;
let carol: Record<string, string>;
/** The transport resources in list order (lists read by listPosition, not by id). */
const ids = inListOrder(['t01', 't02', 't03', 't04', 't05']);

beforeAll(async () => {
  harness = await startTransportResources();
  carol = await harness.as('tenant-paging');
  for (const id of [...ids].reverse()) {
    await harness.app.inject({ method: 'PUT', url: `${BASE}/transport-resource/${id}`, headers: carol, payload: truckBody({ reference: id }) });
  }
});

afterAll(async () => {
  await harness?.close();
});

const list = async (query: string, headers = carol) => {
  const response = await harness.app.inject({ method: 'GET', url: `${BASE}/transport-resource${query}`, headers });
  return { status: response.statusCode, page: json<Page>(response), response };
};
const idsOf = (page: Page) => page.transport_resources.map((resource) => resource.business_id);
const violationsOf = (page: Page) => (page as unknown as { violations: { field: string; message: string }[] }).violations;

describe('GET /transport-resource', () => {
  it('pages forwards with next cursors in list order; the first page has no prev, the last no next', async () => {
    const first = await list('?limit=2');
    expect(first.status).toBe(200);
    expect(idsOf(first.page)).toEqual([ids[0], ids[1]]);
    expect(first.page.cursors.prev).toBeUndefined();
    expect(first.page.cursors.self).toEqual(expect.any(String));
    expect(first.page.cursors.next).toEqual(expect.any(String));

    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(second.page)).toEqual([ids[2], ids[3]]);
    expect(second.page.cursors.prev).toEqual(expect.any(String));
    expect(second.page.cursors.next).toEqual(expect.any(String));

    const third = await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.next!)}`);
    expect(idsOf(third.page)).toEqual([ids[4]]);
    expect(third.page.cursors.next).toBeUndefined();
    expect(third.page.cursors.prev).toEqual(expect.any(String));

    const back = await list(`?limit=2&cursor=${encodeURIComponent(third.page.cursors.prev!)}`);
    expect(idsOf(back.page)).toEqual([ids[2], ids[3]]);
    const front = await list(`?limit=2&cursor=${encodeURIComponent(back.page.cursors.prev!)}`);
    expect(idsOf(front.page)).toEqual([ids[0], ids[1]]);
    expect(front.page.cursors.prev).toBeUndefined();
    const again = await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.self!)}`);
    expect(idsOf(again.page)).toEqual([ids[2], ids[3]]);
  });

  it('returns the full transport resources under transport_resources and defaults to a page of 100', async () => {
    const { status, page } = await list('');
    expect(status).toBe(200);
    expect(Object.keys(page).sort()).toEqual(['cursors', 'transport_resources']);
    expect(page.transport_resources).toHaveLength(5);
    expect(page.transport_resources[0]).toEqual({ business_id: ids[0], ...truckBody({ reference: ids[0] }), inactive: false, version: 1 });
    expect(page.cursors.next).toBeUndefined();
    expect(page.cursors.prev).toBeUndefined();
  });

  it('accepts a limit of 1 and of 1000', async () => {
    const one = await list('?limit=1');
    expect(one.status).toBe(200);
    expect(idsOf(one.page)).toEqual([ids[0]]);
    const thousand = await list('?limit=1000');
    expect(thousand.status).toBe(200);
    expect(idsOf(thousand.page)).toEqual(ids);
    expect(thousand.page.cursors.next).toBeUndefined();
  });

  it('gives no next cursor on a last page that is exactly full, and no prev on a first page reached through a cursor', async () => {
    const full = await list('?limit=5');
    expect(idsOf(full.page)).toEqual(ids);
    expect(full.page.cursors).toEqual({ self: expect.any(String) });

    const first = await list('?limit=3');
    const last = await list(`?limit=3&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(last.page)).toEqual([ids[3], ids[4]]);
    const backToFirst = await list(`?limit=3&cursor=${encodeURIComponent(last.page.cursors.prev!)}`);
    expect(idsOf(backToFirst.page)).toEqual([ids[0], ids[1], ids[2]]);
    expect(backToFirst.page.cursors.prev).toBeUndefined();
    expect(backToFirst.page.cursors.next).toEqual(expect.any(String));
  });

  it('answers an empty list without cursors to a tenant with no transport resources', async () => {
    const { status, page } = await list('', await harness.as('tenant-empty'));
    expect(status).toBe(200);
    expect(page).toEqual({ transport_resources: [], cursors: {} });
  });

  it('refuses a limit outside 1 to 1000 and a malformed one, naming limit', async () => {
    for (const limit of ['0', '1001', '-1', 'ten', '2.5']) {
      const { status, page, response } = await list(`?limit=${limit}`);
      expect(status, limit).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(violationsOf(page).map((violation) => violation.field)).toEqual(['limit']);
    }
  });

  it("refuses a tampered cursor and another tenant's cursor, naming cursor", async () => {
    const first = await list('?limit=2');
    const cursor = first.page.cursors.next!;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const [query, headers] of [
      [`?cursor=${encodeURIComponent(tampered)}`, carol],
      [`?cursor=${encodeURIComponent(cursor)}`, await harness.as('tenant-other')],
      ['?cursor=not-a-cursor', carol],
    ] as const) {
      const { status, page, response } = await list(query, headers);
      expect(status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(violationsOf(page)).toEqual([{ field: 'cursor', message: expect.any(String) }]);
    }
  });

  it('pages through ids of 512 characters with cursors that stay usable', async () => {
    const dave = await harness.as('tenant-long-ids');
    const longIds = inListOrder(['a', 'b', 'c'].map((letter) => letter.repeat(512)));
    for (const id of longIds) {
      expect((await harness.app.inject({ method: 'PUT', url: `${BASE}/transport-resource/${id}`, headers: dave, payload: truckBody() })).statusCode).toBe(201);
    }
    const first = await list('?limit=1', dave);
    expect(idsOf(first.page)).toEqual([longIds[0]]);
    const second = await list(`?limit=1&cursor=${encodeURIComponent(first.page.cursors.next!)}`, dave);
    expect(second.status).toBe(200);
    expect(idsOf(second.page)).toEqual([longIds[1]]);
    for (const cursor of Object.values(second.page.cursors)) expect(cursor.length).toBeLessThanOrEqual(2048);
    expect(idsOf((await list(`?limit=1&cursor=${encodeURIComponent(second.page.cursors.prev!)}`, dave)).page)).toEqual([longIds[0]]);
    const third = await list(`?limit=1&cursor=${encodeURIComponent(second.page.cursors.next!)}`, dave);
    expect(idsOf(third.page)).toEqual([longIds[2]]);
    expect(third.page.cursors.next).toBeUndefined();
  });

  it('stays stable when transport resources are created before the cursor meanwhile', async () => {
    const first = await list('?limit=2');
    // between the first page's two: before its cursor
    const before = keyBetween('t01', ids[0]!, ids[1]!);
    expect((await harness.app.inject({ method: 'PUT', url: `${BASE}/transport-resource/${before}`, headers: carol, payload: truckBody() })).statusCode).toBe(201);
    expect(idsOf((await list('?limit=3')).page)).toEqual([ids[0], before, ids[1]]);
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(second.page)).toEqual([ids[2], ids[3]]);
    expect((await harness.app.inject({ method: 'DELETE', url: `${BASE}/transport-resource/${before}`, headers: carol })).statusCode).toBe(204);
  });

  it('leaves deleted transport resources out', async () => {
    await harness.app.inject({ method: 'PUT', url: `${BASE}/transport-resource/t025`, headers: carol, payload: truckBody() });
    expect(idsOf((await list('?limit=1000')).page)).toContain('t025');
    await harness.app.inject({ method: 'DELETE', url: `${BASE}/transport-resource/t025`, headers: carol });
    expect(idsOf((await list('?limit=1000')).page)).toEqual(ids);
  });
});
