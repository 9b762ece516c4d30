import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, employeeBody, json, startEmployees, type EmployeesHarness } from './helpers.js';

interface Page {
  employees: { business_id: string }[];
  cursors: { self?: string; next?: string; prev?: string };
}

let harness: EmployeesHarness;
let carol: Record<string, string>;
const ids = ['e01', 'e02', 'e03', 'e04', 'e05'];

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
  it('pages forwards with next cursors in id order; the first page has no prev, the last no next', async () => {
    const first = await list('?limit=2');
    expect(first.status).toBe(200);
    expect(idsOf(first.page)).toEqual(['e01', 'e02']);
    expect(first.page.cursors.prev).toBeUndefined();
    expect(first.page.cursors.self).toEqual(expect.any(String));

    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(second.page)).toEqual(['e03', 'e04']);
    expect(second.page.cursors.prev).toEqual(expect.any(String));

    const third = await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.next!)}`);
    expect(idsOf(third.page)).toEqual(['e05']);
    expect(third.page.cursors.next).toBeUndefined();

    const back = await list(`?limit=2&cursor=${encodeURIComponent(third.page.cursors.prev!)}`);
    expect(idsOf(back.page)).toEqual(['e03', 'e04']);
    const again = await list(`?limit=2&cursor=${encodeURIComponent(second.page.cursors.self!)}`);
    expect(idsOf(again.page)).toEqual(['e03', 'e04']);
  });

  it('returns the full employees and defaults to a page of 100', async () => {
    const { page } = await list('');
    expect(page.employees).toHaveLength(5);
    expect(page.employees[0]).toEqual({ business_id: 'e01', ...employeeBody(), version: 1 });
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
    await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/e015`, headers: carol, payload: employeeBody() });
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.page.cursors.next!)}`);
    expect(idsOf(second.page)).toEqual(['e03', 'e04']);
    await harness.app.inject({ method: 'DELETE', url: `${BASE}/employee/e015`, headers: carol });
  });
});
