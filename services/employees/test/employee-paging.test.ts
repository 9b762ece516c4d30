import { inListOrder, keyBetween } from '@rm/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, employeeBody, json, startEmployees, type EmployeesHarness } from './helpers.js';

interface Page {
  employees: { business_id: string }[];
  cursors: { self?: string; next?: string; prev?: string };
}

let harness: EmployeesHarness;
let carol: Record<string, string>;
/** The employees in list order (lists read by listPosition, not by id). */
const ids = inListOrder(['e01', 'e02', 'e03', 'e04', 'e05']);

beforeAll(async () => {
  harness = await startEmployees();
  carol = await harness.as('tenant-paging');
  for (const id of [...ids].reverse()) {
    await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/${id}`, headers: carol, payload: employeeBody() });
  }
});

afterAll(async () => {
  await harness?.close();
});

const list = async (query: string, headers = carol) => {
  const response = await harness.app.inject({ method: 'GET', url: `${BASE}/employee${query}`, headers });
  return { status: response.statusCode, page: json<Page>(response), response };
};
const idsOf = (page: Page) => page.employees.map((employee) => employee.business_id);

describe('GET /employee', () => {
  it('pages forwards with next cursors in list order; the first page has no prev, the last no next', async () => {
    const first = await list('?limit=2');
    expect(first.status).toBe(200);
    expect(idsOf(first.page)).toEqual([ids[0], ids[1]]);
    expect(first.page.cursors.prev).toBeUndefined();
    expect(first.page.cursors.self).toEqual(expect.any(String));

    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(second.page)).toEqual([ids[2], ids[3]]);
    expect(second.page.cursors.prev).toEqual(expect.any(String));

    const third = await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.next!)}`);
    expect(idsOf(third.page)).toEqual([ids[4]]);
    expect(third.page.cursors.next).toBeUndefined();

    const back = await list(`?limit=2&cursor=${encodeURIComponent(third.page.cursors.prev!)}`);
    expect(idsOf(back.page)).toEqual([ids[2], ids[3]]);
    const again = await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.self!)}`);
    expect(idsOf(again.page)).toEqual([ids[2], ids[3]]);
  });

  it('returns the full employees and defaults to a page of 100', async () => {
    const { page } = await list('');
    expect(page.employees).toHaveLength(5);
    expect(page.employees[0]).toEqual({ business_id: ids[0], ...employeeBody(), version: 1 });
    expect(page.cursors.next).toBeUndefined();
  });

  it('answers an empty list without cursors to a tenant with no employees', async () => {
    const { status, page } = await list('', await harness.as('tenant-empty'));
    expect(status).toBe(200);
    expect(page).toEqual({ employees: [], cursors: {} });
  });

  it('refuses a limit outside 1 to 1000 and a malformed one, naming limit', async () => {
    for (const limit of ['0', '1001', 'ten']) {
      const { status, page } = await list(`?limit=${limit}`);
      expect(status).toBe(400);
      expect((page as unknown as { violations: { field: string }[] }).violations.map((v) => v.field)).toEqual(['limit']);
    }
  });

  it('refuses a tampered cursor and another tenant\'s cursor, naming cursor', async () => {
    const first = await list('?limit=2');
    const cursor = first.page.cursors.next!;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const [query, headers] of [
      [`?cursor=${encodeURIComponent(tampered)}`, carol],
      [`?cursor=${encodeURIComponent(cursor)}`, await harness.as('tenant-other')],
      ['?cursor=not-a-cursor', carol],
    ] as const) {
      const { status, page } = await list(query, headers);
      expect(status).toBe(400);
      expect((page as unknown as { violations: { field: string }[] }).violations).toEqual([
        { field: 'cursor', message: expect.any(String) },
      ]);
    }
  });

  it('stays stable when employees are created before the cursor meanwhile', async () => {
    const first = await list('?limit=2');
    // between the first page's two: before its cursor
    const before = keyBetween('e01', ids[0]!, ids[1]!);
    expect((await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/${before}`, headers: carol, payload: employeeBody() })).statusCode).toBe(201);
    expect(idsOf((await list('?limit=3')).page)).toEqual([ids[0], before, ids[1]]);
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(second.page)).toEqual([ids[2], ids[3]]);
    expect((await harness.app.inject({ method: 'DELETE', url: `${BASE}/employee/${before}`, headers: carol })).statusCode).toBe(204);
  });
});
