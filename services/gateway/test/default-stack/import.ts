import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, signIn, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

const ADDRESS = { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' };
const EMPLOYEE = { name: { first_name: 'Ada', last_name: 'Peeters' }, start_location: ADDRESS };
const AVAILABILITY = { start_location: { address: ADDRESS }, earliest_start: '2026-12-07T06:00:00Z', max_duration: 'PT8H' };

let gateway: GatewayHarness;
let token: string;

interface Outcome {
  line: number;
  status: number;
  location?: string;
  etag?: string;
  problem?: { title: string; detail: string; violations?: { field: string; message: string }[] };
}

async function importLines(lines: (object | string)[], as = token): Promise<{ status: number; outcomes: Outcome[]; type: string | null }> {
  const body = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
  const response = await gateway.fetch(`${BASE}/import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${as}`, 'Content-Type': 'application/x-ndjson' },
    body,
  });
  const text = await response.text();
  const outcomes = response.status === 200 ? text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Outcome) : [];
  return { status: response.status, outcomes, type: response.headers.get('content-type') };
}

function get(path: string): Promise<Response> {
  return gateway.fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${token}` } });
}

/** `POST /import` through the gateway, to the owners behind it. */
export function describeImport(stack: () => Stack): void {
  describe('POST /import', () => {
    beforeAll(async () => {
      gateway = stack().gateway;
      ({ token } = await signIn(gateway));
    });

    it('applies each line as a single call would, and answers one line per line in input order; a bad line fails alone', async () => {
      const { status, outcomes, type } = await importLines([
        { method: 'PUT', path: '/employee/imp-1', body: EMPLOYEE },
        { method: 'POST', path: '/employee/imp-1/availability', body: AVAILABILITY, headers: { 'Idempotency-Key': 'imp-1-a' } },
        '{not json',
        '',
        { method: 'PUT', path: '/truck/t1', body: {} },
        { method: 'PUT', path: '/employee/imp-2', body: { ...EMPLOYEE, start_location: { name: 'x' } } },
        { method: 'DELETE', path: '/employee/imp-missing' },
        { method: 'PATCH', path: '/employee/imp-1', body: EMPLOYEE, extra: 1 },
        // a generation writes many availabilities for one line of the rate: refused (review finding)
        { method: 'POST', path: '/employee/imp-1/availability-generation', body: { from: '2030-01-07T00:00:00Z', until: '2030-01-14T00:00:00Z' } },
        { method: 'PUT', path: '/employee/imp-3', body: EMPLOYEE },
      ]);
      expect(status).toBe(200);
      expect(type).toMatch(/^application\/x-ndjson/);
      expect(outcomes.map(({ line, status }) => [line, status])).toEqual([
        [1, 201],
        [2, 201],
        [3, 400],
        [5, 400],
        [6, 400],
        [7, 404],
        [8, 400],
        [9, 400],
        [10, 201],
      ]);
      expect(outcomes[0]).toMatchObject({ location: expect.stringMatching(/\/resource-management\/v1\/employee\/imp-1$/), etag: 'W/"1"' });
      expect(outcomes[2]!.problem!.violations).toEqual([{ field: 'line', message: 'must be one JSON object' }]);
      expect(outcomes[3]!.problem!.violations).toEqual([{ field: 'path', message: 'names no resource of the API' }]);
      expect(outcomes[4]!.problem!.violations!.map(({ field }) => field)).toContain('start_location.city');
      expect(outcomes[6]!.problem!.violations!.map(({ field }) => field).sort()).toEqual(['extra', 'method']);
      expect(outcomes[7]!.problem!.violations).toEqual([{ field: 'path', message: 'is a generation, which writes many availabilities: call it directly, not in an import' }]);

      expect((await get('/employee/imp-1')).status).toBe(200);
      expect((await get('/employee/imp-2')).status).toBe(404);
      const availability = await get(new URL(outcomes[1]!.location!).pathname.slice(BASE.length));
      expect(availability.status).toBe(200);

      // the same Idempotency-Key again: the availability it created, not a second one
      const again = await importLines([{ method: 'POST', path: '/employee/imp-1/availability', body: AVAILABILITY, headers: { 'idempotency-key': 'imp-1-a' } }]);
      expect(again.outcomes).toEqual([expect.objectContaining({ line: 1, status: 201, location: outcomes[1]!.location })]);
    });

    it('applies the lines of one resource in order, If-Match included', async () => {
      const renamed = { ...EMPLOYEE, name: { first_name: 'Ada', last_name: 'Renamed' } };
      const { outcomes } = await importLines([
        { method: 'PUT', path: '/employee/imp-order', body: EMPLOYEE },
        { method: 'PUT', path: '/employee/imp-order', body: renamed, headers: { 'if-match': 'W/"1"' } },
        { method: 'PUT', path: '/employee/imp-order', body: EMPLOYEE, headers: { 'if-match': 'W/"1"' } },
        { method: 'DELETE', path: '/employee/imp-order' },
        { method: 'PUT', path: '/employee/imp-order', body: renamed },
      ]);
      expect(outcomes.map(({ status }) => status)).toEqual([201, 200, 412, 204, 201]);
      const read = await get('/employee/imp-order');
      expect(((await read.json()) as { name: { last_name: string } }).name.last_name).toBe('Renamed');
    });

    it('reads percent-escaped paths as a single call does: one resource under either spelling, its lines in order', async () => {
      const { outcomes } = await importLines([
        { method: 'PUT', path: '/employee/imp%2Dpct', body: EMPLOYEE },
        { method: 'PUT', path: '/employee/imp-pct', body: EMPLOYEE, headers: { 'if-match': 'W/"1"' } },
        { method: 'POST', path: '/employee/imp%2dpct/availability', body: AVAILABILITY },
        { method: 'PUT', path: '/employee/%2E%2E', body: EMPLOYEE },
        { method: 'PUT', path: '/employee/imp%zz', body: EMPLOYEE },
        { method: 'PUT', path: '/employee/imp%C3', body: EMPLOYEE },
      ]);
      expect(outcomes.map(({ line, status }) => [line, status])).toEqual([
        [1, 201],
        [2, 200],
        [3, 201],
        [4, 400],
        [5, 400],
        [6, 400],
      ]);
      expect(outcomes[0]!.location).toMatch(/\/employee\/imp-pct$/);
      expect(outcomes[2]!.location).toMatch(/\/employee\/imp-pct\/availability\/[0-9a-f-]+$/);
      for (const refused of outcomes.slice(3)) expect(refused.problem!.violations!.map(({ field }) => field)).toEqual(['path']);
    });

    it('refuses a body that is not NDJSON, and a line longer than a single call may send, alone', async () => {
      const json = await gateway.fetch(`${BASE}/import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(json.status).toBe(415);

      const long = { method: 'PUT', path: '/employee/imp-long', body: { ...EMPLOYEE, labels: ['x'.repeat(1_100_000)] } };
      const { outcomes } = await importLines([long, { method: 'PUT', path: '/employee/imp-after-long', body: EMPLOYEE }]);
      expect(outcomes.map(({ line, status }) => [line, status])).toEqual([
        [1, 413],
        [2, 201],
      ]);
    });
  });
}
