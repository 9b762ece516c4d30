import { inListOrder } from '@rm/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, homeBaseBody, json, startHomeBases, type HomeBasesHarness } from './helpers.js';

interface Page {
  home_bases: { business_id: string }[];
  cursors: { self?: string; next?: string; prev?: string };
}

let harness: HomeBasesHarness;
let carol: Record<string, string>;
/** The home bases in list order (lists read by listPosition, not by id). */
const ids = inListOrder(['h01', 'h02', 'h03', 'h04', 'h05']);

beforeAll(async () => {
  harness = await startHomeBases();
  carol = await harness.as('tenant-paging');
  for (const id of [...ids].reverse()) {
    await harness.app.inject({ method: 'PUT', url: `${BASE}/home-base/${id}`, headers: carol, payload: homeBaseBody({ name: id }) });
  }
});

afterAll(async () => {
  await harness?.close();
});

const list = async (query: string, headers = carol) => {
  const response = await harness.app.inject({ method: 'GET', url: `${BASE}/home-base${query}`, headers });
  return { status: response.statusCode, page: json<Page>(response), response };
};
const idsOf = (page: Page) => page.home_bases.map((homeBase) => homeBase.business_id);
const violationsOf = (page: Page) => (page as unknown as { violations: { field: string; message: string }[] }).violations;

describe('GET /home-base', () => {
  it('returns the full home bases under home_bases in list order, and defaults to a page of 100', async () => {
    const { status, page } = await list('');
    expect(status).toBe(200);
    expect(Object.keys(page).sort()).toEqual(['cursors', 'home_bases']);
    expect(idsOf(page)).toEqual(ids);
    expect(page.home_bases[0]).toEqual({ business_id: ids[0], ...homeBaseBody({ name: ids[0] }), version: 1 });
    expect(page.cursors).toEqual({ self: expect.any(String) });
  });

  it('pages forwards with next cursors and back with prev; the first page has no prev, the last no next', async () => {
    const first = await list('?limit=2');
    expect(idsOf(first.page)).toEqual([ids[0], ids[1]]);
    expect(first.page.cursors.prev).toBeUndefined();
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(second.page)).toEqual([ids[2], ids[3]]);
    const third = await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.next!)}`);
    expect(idsOf(third.page)).toEqual([ids[4]]);
    expect(third.page.cursors.next).toBeUndefined();

    const back = await list(`?limit=2&cursor=${encodeURIComponent(third.page.cursors.prev!)}`);
    expect(idsOf(back.page)).toEqual([ids[2], ids[3]]);
    const front = await list(`?limit=2&cursor=${encodeURIComponent(back.page.cursors.prev!)}`);
    expect(idsOf(front.page)).toEqual([ids[0], ids[1]]);
    expect(front.page.cursors.prev).toBeUndefined();
    expect(idsOf((await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.self!)}`)).page)).toEqual([ids[2], ids[3]]);
  });

  it('accepts a limit of 1 and of 1000, and refuses one outside 1 to 1000 or malformed, naming limit', async () => {
    expect(idsOf((await list('?limit=1')).page)).toEqual([ids[0]]);
    expect(idsOf((await list('?limit=1000')).page)).toEqual(ids);
    for (const limit of ['0', '1001', '-1', 'ten', '2.5']) {
      const { status, page, response } = await list(`?limit=${limit}`);
      expect(status, limit).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(violationsOf(page).map((violation) => violation.field)).toEqual(['limit']);
    }
  });

  it('answers an empty list without cursors to a tenant with no home bases', async () => {
    expect((await list('', await harness.as('tenant-empty'))).page).toEqual({ home_bases: [], cursors: {} });
  });

  it("refuses a tampered cursor and another tenant's cursor, naming cursor", async () => {
    const cursor = (await list('?limit=2')).page.cursors.next!;
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

  it('leaves deleted home bases out', async () => {
    await harness.app.inject({ method: 'PUT', url: `${BASE}/home-base/h025`, headers: carol, payload: homeBaseBody() });
    expect(idsOf((await list('?limit=1000')).page)).toContain('h025');
    await harness.app.inject({ method: 'DELETE', url: `${BASE}/home-base/h025`, headers: carol });
    expect(idsOf((await list('?limit=1000')).page)).toEqual(ids);
  });
});
