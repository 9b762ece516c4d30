import { inListOrder, keyBetween } from '@rm/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actualBody,
  actualClient,
  json,
  newTenant,
  startDeploymentsWorld,
  stored,
  type ActualClient,
  type DeploymentsWorld,
} from './helpers.js';

interface Page {
  actuals: { employee_id: string; business_id: string; etag: string; version: number }[];
  cursors: { self?: string; next?: string; prev?: string };
}

const tenant = newTenant('actual_paging');
const otherTenant = newTenant('actual_paging_b');
const EMPLOYEE = 'emp-paging';
const NEIGHBOUR = 'emp-neighbour';
/** The actuals in list order (lists read by listPosition, not by id). */
const ids = inListOrder(['a01', 'a02', 'a03', 'a04', 'a05']);

/** A neighbour's actuals: one before this employee's first, one between its second and third, one after its last. */
const neighbourIds = [keyBetween('a00', undefined, ids[0]), keyBetween('a00', ids[1], ids[2]), keyBetween('a00', ids[4], undefined)];
let world: DeploymentsWorld;
let carol: ActualClient;

beforeAll(async () => {
  world = await startDeploymentsWorld();
  carol = actualClient(world.harness, await world.harness.as(tenant));
  await world.employee(tenant, EMPLOYEE);
  await world.employee(tenant, NEIGHBOUR);
  for (const id of [...ids].reverse()) {
    const response = await carol.put(EMPLOYEE, id, actualBody({ work_time: `PT${id.slice(1)}M` }));
    expect(response.statusCode).toBe(201);
  }
  // a neighbour's actuals sort between and around this employee's ids: never listed with them
  for (const id of neighbourIds) expect((await carol.put(NEIGHBOUR, id, actualBody())).statusCode).toBe(201);
});

afterAll(async () => {
  await world?.close();
});

const list = async (query: string, client = carol, employee = EMPLOYEE) => {
  const response = await client.list(employee, query);
  return { status: response.statusCode, page: json<Page>(response), response };
};
const idsOf = (page: Page) => page.actuals.map((actual) => actual.business_id);
const violationsOf = (page: Page) => (page as unknown as { violations: { field: string; message: string }[] }).violations;
const at = (cursor: string | undefined) => `cursor=${encodeURIComponent(cursor ?? '')}`;

describe('GET /means/{employee_id}/actual', () => {
  it("returns the employee's full actuals under actuals in list order, each with its etag, and a page of 100 by default", async () => {
    const { status, page } = await list('');
    expect(status).toBe(200);
    expect(Object.keys(page).sort()).toEqual(['actuals', 'cursors']);
    expect(idsOf(page)).toEqual(ids);
    expect(page.actuals[0]).toEqual({ ...stored(EMPLOYEE, ids[0]!, 1, actualBody({ work_time: `PT${ids[0]!.slice(1)}M` })), etag: 'W/"1"' });
    expect(page.cursors).toEqual({ self: expect.any(String) });
  });

  it('pages forwards with next cursors and back with prev; the first page has no prev, the last no next', async () => {
    const first = await list('?limit=2');
    expect(idsOf(first.page)).toEqual([ids[0], ids[1]]);
    expect(first.page.cursors.prev).toBeUndefined();
    const second = await list(`?limit=2&${at(first.page.cursors.next)}`);
    expect(idsOf(second.page)).toEqual([ids[2], ids[3]]);
    const third = await list(`?limit=2&${at(second.page.cursors.next)}`);
    expect(idsOf(third.page)).toEqual([ids[4]]);
    expect(third.page.cursors.next).toBeUndefined();

    const back = await list(`?limit=2&${at(third.page.cursors.prev)}`);
    expect(idsOf(back.page)).toEqual([ids[2], ids[3]]);
    const front = await list(`?limit=2&${at(back.page.cursors.prev)}`);
    expect(idsOf(front.page)).toEqual([ids[0], ids[1]]);
    expect(front.page.cursors.prev).toBeUndefined();
    expect(idsOf((await list(`?limit=2&${at(second.page.cursors.self)}`)).page)).toEqual([ids[2], ids[3]]);
  });

  it('shows on the next page what was written after the first page was read, and leaves deleted actuals out', async () => {
    const first = await list('?limit=2');
    const written = keyBetween('a03', ids[2], ids[3]);
    expect((await carol.put(EMPLOYEE, written, actualBody())).statusCode).toBe(201);
    expect(idsOf((await list(`?limit=2&${at(first.page.cursors.next)}`)).page)).toEqual([ids[2], written]);
    expect((await carol.remove(EMPLOYEE, written)).statusCode).toBe(204);
    expect(idsOf((await list(`?limit=2&${at(first.page.cursors.next)}`)).page)).toEqual([ids[2], ids[3]]);
    expect(idsOf((await list('?limit=1000')).page)).toEqual(ids);
  });

  it('accepts a limit of 1 and of 1000, and refuses one outside 1 to 1000 or malformed, naming limit', async () => {
    expect(idsOf((await list('?limit=1')).page)).toEqual([ids[0]]);
    expect(idsOf((await list('?limit=1000')).page)).toEqual(ids);
    for (const limit of ['0', '1001', '-1', 'ten', '2.5', '']) {
      const { status, page, response } = await list(`?limit=${limit}`);
      expect(status, limit).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(violationsOf(page).map((violation) => violation.field)).toEqual(['limit']);
    }
  });

  it("refuses a tampered cursor, another employee's and another tenant's, naming cursor", async () => {
    const cursor = (await list('?limit=2')).page.cursors.next!;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    const bob = actualClient(world.harness, await world.harness.as(otherTenant));
    await world.employee(otherTenant, EMPLOYEE);
    for (const [query, client, employee] of [
      [`?${at(tampered)}`, carol, EMPLOYEE],
      [`?${at(cursor)}`, carol, NEIGHBOUR],
      [`?${at(cursor)}`, bob, EMPLOYEE],
      ['?cursor=not-a-cursor', carol, EMPLOYEE],
    ] as const) {
      const { status, page, response } = await list(query, client, employee);
      expect(status, query).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(violationsOf(page)).toEqual([{ field: 'cursor', message: expect.any(String) }]);
    }
  });

  it("lists only the named employee's actuals", async () => {
    const { page } = await list('', carol, NEIGHBOUR);
    expect(idsOf(page)).toEqual(neighbourIds);
    expect(page.actuals.every((actual) => actual.employee_id === NEIGHBOUR)).toBe(true);
  });

  it('pages through more than one full page of 100', async () => {
    const employee = 'emp-many';
    await world.employee(tenant, employee);
    const many = inListOrder(Array.from({ length: 150 }, (_, index) => `m${String(index).padStart(3, '0')}`));
    for (const id of many) expect((await carol.put(employee, id, actualBody(), { prefer: 'return=minimal' })).statusCode).toBe(204);
    const first = await list('', carol, employee);
    expect(idsOf(first.page)).toEqual(many.slice(0, 100));
    const second = await list(`?${at(first.page.cursors.next)}`, carol, employee);
    expect(idsOf(second.page)).toEqual(many.slice(100));
    expect(second.page.cursors.next).toBeUndefined();
    expect(idsOf((await list('?limit=1000', carol, employee)).page)).toEqual(many);
  });
});
