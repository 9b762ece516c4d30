import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { json } from './helpers.js';
import {
  at,
  calendarDisagreements,
  overlapsAmong,
  pauseAt,
  spanBody,
  useDeploymentWorld,
  type Deployment,
  type DeploymentClient,
} from './deployment-helpers.js';

// Writes that race: whatever the interleaving, no two deployments that exist share a resource over
// overlapping spans, every refused write is a 409 naming another deployment, and once every answer
// is in, each calendar holds exactly what is committed (no pending entry, nothing of a deployment that
// is gone or moved away).

const { world: dw } = useDeploymentWorld();

const status = (response: LightMyRequestResponse) => response.statusCode;
const conflictOf = (response: LightMyRequestResponse) => json<{ conflicting_id?: string }>(response).conflicting_id;

/** Checks the tenant's state after a burst: no overlaps, and calendars that agree with it. Returns the deployments. */
async function expectConsistent(tenant: string, client: DeploymentClient): Promise<Deployment[]> {
  const all = await client.all();
  expect(overlapsAmong(all)).toEqual([]);
  expect(await calendarDisagreements(dw.harness, tenant, all)).toEqual([]);
  return all;
}

/** Every answer is 201 or 409; each 409 names one of `ids` other than its own. */
function expectCreatedOrConflict(responses: LightMyRequestResponse[], ids: string[]): void {
  for (const [index, response] of responses.entries()) {
    expect([201, 409], response.body).toContain(status(response));
    if (status(response) === 409) {
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(ids.filter((id) => id !== ids[index])).toContain(conflictOf(response));
    }
  }
}

describe('ten writes at once', () => {
  // deployment i takes employee e-i and trucks t-i and t-(i+1): neighbours share a truck
  const shapes: [string, (i: number) => [number, number]][] = [
    ['all the same span', () => [8, 16]],
    ['staggered spans, each overlapping its neighbours', (i) => [i, i + 2]],
    ['long and short spans alternating', (i) => (i % 2 === 0 ? [0, 24] : [10 + i / 10, 11 + i / 10])],
    ['spans that only touch the even neighbours', (i) => (i % 2 === 0 ? [i, i + 1.5] : [i + 0.5, i + 1])],
    ['nested spans', (i) => [i * 0.5, 24 - i * 0.5]],
  ];

  it('of different deployments overlapping pairwise on shared trucks: no overlap survives, at least one is created', async () => {
    const { tenant, client, employees, trucks } = await dw.tenantWith('conc_pairs', 10, 11);
    for (const [round, [shape, span]] of shapes.entries()) {
      for (let repeat = 0; repeat < 3; repeat += 1) {
        const day = (round * 3 + repeat) * 24;
        const ids = employees.map((_, i) => `r${round}-${repeat}-d${i}`);
        const bodies = ids.map((_, i) => {
          const [from, to] = span(i);
          return spanBody(employees[i]!, [trucks[i]!, trucks[i + 1]!], at(day + from), at(day + to));
        });
        const responses = await Promise.all(ids.map((id, i) => client.put(id, bodies[i])));
        expectCreatedOrConflict(responses, ids);
        const created = ids.filter((_, i) => status(responses[i]!) === 201);
        expect(created.length, shape).toBeGreaterThanOrEqual(1);
        const all = await expectConsistent(tenant, client);
        // what exists of the round is exactly what was created
        expect(all.filter(({ id }) => ids.includes(id)).map(({ id }) => id).sort(), shape).toEqual([...created].sort());
      }
    }
  }, 120_000);

  it('of deployments of the same employee overlapping: exactly one is created, the others name it', async () => {
    const { tenant, client, employees, trucks } = await dw.tenantWith('conc_employee', 1, 10);
    for (let round = 0; round < 5; round += 1) {
      const ids = trucks.map((_, i) => `same-${round}-${i}`);
      const responses = await Promise.all(
        ids.map((id, i) => client.put(id, spanBody(employees[0]!, [trucks[i]!], at(round * 24 + i * 0.25), at(round * 24 + 8 + i * 0.25)))),
      );
      const created = ids.filter((_, i) => status(responses[i]!) === 201);
      expect(created).toHaveLength(1);
      for (const response of responses.filter((answer) => status(answer) !== 201)) {
        expect(status(response)).toBe(409);
        expect(conflictOf(response)).toBe(created[0]);
      }
      await expectConsistent(tenant, client);
    }
  }, 60_000);

  it('of deployments taking the same employee and trucks: exactly one is created', async () => {
    const { tenant, client, employees, trucks } = await dw.tenantWith('conc_all_same', 1, 3);
    const ids = Array.from({ length: 10 }, (_, i) => `all-${i}`);
    const responses = await Promise.all(ids.map((id) => client.put(id, spanBody(employees[0]!, trucks, at(8), at(9)))));
    expect(responses.filter((response) => status(response) === 201)).toHaveLength(1);
    expectCreatedOrConflict(responses, ids);
    expect((await expectConsistent(tenant, client)).map(({ id }) => id)).toHaveLength(1);
  });

  it('of updates moving deployments into each other and creates in between: no overlap, calendars agree', async () => {
    const { tenant, client, employees, trucks } = await dw.tenantWith('conc_moves', 10, 10);
    // ten deployments one after another on truck t-0, each of its own employee
    for (const [i, employee] of employees.entries()) {
      expect(status(await client.put(`m-${i}`, spanBody(employee, [trucks[0]!], at(i), at(i + 1))))).toBe(201);
    }
    for (let round = 1; round <= 4; round += 1) {
      const current = new Map((await client.all()).map((deployment) => [deployment.id, deployment]));
      const writes = employees.map((employee, i) => {
        const start = i + round * 0.3;
        // every other one moves to the next truck at the same time, the rest shift later on t-0
        const moved = (i + round) % 2 === 0 ? [trucks[round]!] : [trucks[0]!];
        return client.put(`m-${i}`, spanBody(employee, moved, at(start), at(start + 1)));
      });
      const creates = trucks
        .slice(1, 5)
        .map((truck, k) => client.put(`new-${round}-${k}`, spanBody(employees[k]!, [truck], at(round), at(round + 2))));
      const responses = await Promise.all([...writes, ...creates]);
      for (const [index, response] of responses.entries()) {
        const expected = index < writes.length && current.has(`m-${index}`) ? [200, 409] : [201, 409];
        expect(expected, response.body).toContain(status(response));
      }
      await expectConsistent(tenant, client);
    }
  }, 60_000);
});

describe('writes of one deployment at once', () => {
  /** The lines of calendarDisagreements that are not a leftover committed entry (cleared when a write meets it, see below). */
  const withoutLeftovers = (lines: string[]) =>
    lines.filter((line) => !line.startsWith('held but not committed:') || line.endsWith(' pending'));

  it('ten PUTs of one new deployment to different trucks: it ends on one of them, held there, no overlap', async () => {
    const { tenant, client, employees, trucks } = await dw.tenantWith('conc_same_id', 1, 10);
    for (let round = 0; round < 5; round += 1) {
      const id = `one-${round}`;
      const span = [at(round * 24 + 8), at(round * 24 + 16)] as const;
      const responses = await Promise.all(trucks.map((truck) => client.put(id, spanBody(employees[0]!, [truck], ...span))));
      // one created it, the others updated it (or lost a race on the calendar to a write of another body of it)
      expect(responses.filter((response) => status(response) === 201)).toHaveLength(1);
      for (const response of responses) expect([200, 201], response.body).toContain(status(response));
      const all = await client.all();
      expect(all.filter((deployment) => deployment.id === id)).toHaveLength(1);
      expect(overlapsAmong(all)).toEqual([]);
      expect(withoutLeftovers(await calendarDisagreements(dw.harness, tenant, all))).toEqual([]);
    }
  }, 60_000);

  // Two PUTs of a new deployment racing: the first to commit reconciles its truck (committed there), then
  // the second commits the deployment onto another truck and reconciles only that one. The first truck
  // keeps an entry of a deployment that no longer takes it; it blocked that truck for good until a write
  // in its way began checking such entries against what their deployment has committed now.
  it('two PUTs of one new deployment to different trucks, committed in the other order: the losing truck is free', async () => {
    const { tenant, client, employees } = await dw.tenantWith('conc_ghost_put', 2, 2);
    const deployments = dw.harness.service.collections.deployments;
    const slow = pauseAt(deployments, 'put', (_id: unknown, fields: { transport_resource_ids: string[] }) =>
      fields.transport_resource_ids.includes('t-1'),
    );
    // the write to t-1 has read the deployment (none) and holds its calendars, but has not committed yet
    const [second, first] = await slow.interleave(
      () => client.put('ghost', spanBody(employees[0]!, ['t-1'], at(8), at(16))),
      () => client.put('ghost', spanBody(employees[0]!, ['t-0'], at(8), at(16))),
    );
    expect(status(first)).toBe(201);
    expect(status(second)).toBe(200);
    expect(json(await client.get('ghost'))).toMatchObject({ transport_resource_ids: ['t-1'], version: 2 });
    const probe = await client.put('probe', spanBody(employees[1]!, ['t-0'], at(8), at(16)));
    expect(status(probe), probe.body).toBe(201);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });

  // The same with a delete: it reads the deployment (on t-0) and holds t-0; an update moves it to t-1
  // and commits; the delete then removes it and reconciles t-0 only, leaving t-1 held by a deployment
  // that no longer exists (it was a 409 naming it to every overlapping write on t-1, for good).
  it('a delete racing an update that moves the deployment to another truck: once it is deleted, that truck is free', async () => {
    const { tenant, client, employees } = await dw.tenantWith('conc_ghost_delete', 2, 2);
    expect(status(await client.put('doomed', spanBody(employees[0]!, ['t-0'], at(8), at(16))))).toBe(201);
    const deployments = dw.harness.service.collections.deployments;
    const slow = pauseAt(deployments, 'remove', (id: { key: string }) => id.key === 'doomed');
    const [removed, moved] = await slow.interleave(
      () => client.remove('doomed'),
      () => client.put('doomed', spanBody(employees[0]!, ['t-1'], at(8), at(16))),
    );
    expect(status(moved)).toBe(200);
    expect(status(removed)).toBe(204);
    expect(status(await client.get('doomed'))).toBe(404);
    const probe = await client.put('probe', spanBody(employees[1]!, ['t-1'], at(8), at(16)));
    expect(status(probe), probe.body).toBe(201);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });

  it('an update moving a deployment to another truck racing its delete: no overlap, what remains is held', async () => {
    const { tenant, client, employees, trucks } = await dw.tenantWith('conc_move_delete', 1, 2);
    for (let round = 0; round < 8; round += 1) {
      const id = `md-${round}`;
      const [from, to] = [at(round * 24 + 8), at(round * 24 + 16)];
      expect(status(await client.put(id, spanBody(employees[0]!, [trucks[0]!], from, to)))).toBe(201);
      const [moved, removed] = await Promise.all([client.put(id, spanBody(employees[0]!, [trucks[1]!], from, to)), client.remove(id)]);
      expect([200, 201], moved.body).toContain(status(moved));
      expect(status(removed)).toBe(204);
      const all = await client.all();
      expect(overlapsAmong(all)).toEqual([]);
      expect(withoutLeftovers(await calendarDisagreements(dw.harness, tenant, all))).toEqual([]);
    }
  }, 60_000);
});
