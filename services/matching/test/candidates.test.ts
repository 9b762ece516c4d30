import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@rm/testkit';
import { atHomeBase, BASE, HOUR, inputs, startMatchingWorld, type MatchingWorld } from './world.js';

/* Why a shift is or is not combined (issue 30, item 3), through real events and the read API. */

let world: MatchingWorld;
const tenant = `t-${randomUUID().slice(0, 8)}`;
/** Hours after 2030-01-01T00:00Z. */
const at = (hours: number) => new Date(Date.UTC(2030, 0, 1) + hours * HOUR).toISOString();
const first = randomUUID();
const second = randomUUID();

interface Candidates {
  available_employee_id: string;
  employee_id: string;
  combined_with?: string[];
  candidates: { transport_resource_id: string; feasible: boolean; combined: boolean; reasons: Record<string, unknown>[] }[];
}

async function candidatesOf(availabilityId: string) {
  const response = await world.harness.app.inject({ method: 'GET', url: `${BASE}/available-employee/${availabilityId}/candidates`, headers: await world.harness.as(tenant) });
  return { status: response.statusCode, body: response.json() as Candidates };
}

beforeAll(async () => {
  world = await startMatchingWorld();
  const truck = (id: string, fields: Record<string, unknown> = {}) => world.publish(tenant, 'transport-resource', id, inputs.transportResource(id, { ...atHomeBase('hb'), ...fields }));
  await truck('t-free', { requirements: ['C'] });
  await truck('t-adr', { requirements: ['C', 'ADR'] });
  await truck('t-inactive', { inactive: true });
  await truck('t-down');
  await truck('t-elsewhere', atHomeBase('other'));
  const repair = randomUUID();
  await world.publish(tenant, 'transport-resource-unavailability', `t-down/${repair}`, inputs.unavailability('transport_resource_id', 't-down', repair, at(2), at(4)));
  for (const employee of ['e1', 'e2']) await world.publish(tenant, 'employee', employee, inputs.employee(employee, { ...atHomeBase('hb'), driver_skills: ['C'] }));
  // the mandatory shift keeps the one truck it can take; the other shift, at the same time, cannot have it
  await world.publish(tenant, 'availability', `e1/${first}`, inputs.availability('e1', first, at(0), { mandatory: true }));
  await world.until(tenant, 'the first shift on t-free', (found) => found.get(first)?.transport_resource_ids[0] === 't-free');
  await world.publish(tenant, 'availability', `e2/${second}`, inputs.availability('e2', second, at(1)));
  await waitFor('the second shift consolidated', async () => (await candidatesOf(second)).status === 200);
});
afterAll(async () => {
  await world?.close();
});

describe('GET /available-employee/{id}/candidates', () => {
  it('lists the transport resources where the shift starts: the one it is combined with first, then every other with each reason', async () => {
    const { status, body } = await candidatesOf(first);
    expect(status).toBe(200);
    expect(body).toMatchObject({ available_employee_id: first, employee_id: 'e1', combined_with: ['t-free'] });
    expect(body.candidates).toEqual([
      { transport_resource_id: 't-free', feasible: true, combined: true, reasons: [] },
      { transport_resource_id: 't-adr', feasible: false, combined: false, reasons: [expect.objectContaining({ code: 'requirements', missing: ['ADR'] })] },
      {
        transport_resource_id: 't-down',
        feasible: false,
        combined: false,
        reasons: [expect.objectContaining({ code: 'resource-unavailable', periods: [{ from: at(2), to: at(4) }] })],
      },
      { transport_resource_id: 't-inactive', feasible: false, combined: false, reasons: [expect.objectContaining({ code: 'inactive' })] },
    ]);
  });

  it('names the shift that holds a transport resource another shift could take', async () => {
    const { body } = await candidatesOf(second);
    expect(body.combined_with).toBeUndefined();
    expect(body.candidates.find((candidate) => candidate.transport_resource_id === 't-free')).toEqual({
      transport_resource_id: 't-free',
      feasible: false,
      combined: false,
      reasons: [expect.objectContaining({ code: 'taken', taken_by: { resource_combination_id: first, employee_id: 'e1' } })],
    });
  });

  it('answers 404 for a shift the engine does not know', async () => {
    const { status, body } = await candidatesOf(randomUUID());
    expect(status).toBe(404);
    expect(body).toMatchObject({ title: 'Not Found' });
  });
});
