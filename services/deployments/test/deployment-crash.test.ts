import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { json } from './helpers.js';
import {
  at,
  calendarDisagreements,
  calendarEntries,
  calendarsOf,
  plantEntries,
  spanBody,
  staleSince,
  storedFields,
  useDeploymentWorld,
  type CalendarEntry,
} from './deployment-helpers.js';

// What a writer that crashed between its steps leaves in the calendars (see coordination/deployment-writer.ts: hold a
// pending entry on each resource, commit, reconcile), planted directly: a pending entry whose write never
// came back. Once older than STALE_PENDING_MS (60 s) the next write that meets it reconciles it with what
// is committed: it frees what was never committed and keeps what was.

const { world: dw } = useDeploymentWorld();

/** A pending entry of a write that never came back, `since` when it was held. */
const pending = (deployment: string, start: string, end: string, since: Date): CalendarEntry => ({
  deployment,
  start: new Date(start),
  end: new Date(end),
  write: randomUUID(),
  since,
});

type Resource = readonly ['employee' | 'transport-resource', string];
const E0_AND_T0: Resource[] = [['employee', 'e-0'], ['transport-resource', 't-0']];

/** Plants on each of `resources` the pending entry of a write of `deployment` over `[start, end)` that never came back, stale now. */
async function plantStale(tenant: string, deployment: string, start: string, end: string, resources: Resource[]): Promise<void> {
  const since = staleSince();
  for (const [entity, id] of resources) await plantEntries(dw.harness, tenant, entity, id, [pending(deployment, start, end, since)]);
}

/**
 * A tenant of its own (employees e-0, e-1, trucks t-0, t-1) where `deployment` was created on e-0 and
 * t-0 over `created`, then a write of it over `written` held its pending entries there and crashed.
 */
async function afterCrashedWrite(prefix: string, deployment: string, created: [string, string], written: [string, string]) {
  const { tenant, client } = await dw.tenantWith(prefix, 2, 2);
  const response = await client.put(deployment, spanBody('e-0', ['t-0'], ...created));
  expect(response.statusCode, response.body).toBe(201);
  await plantStale(tenant, deployment, ...written, E0_AND_T0);
  return { tenant, client };
}

/** Makes the pending entries of `deployment` on truck `truck` stale, as if 61 s and more had passed. */
async function ageEntries(tenant: string, truck: string, deployment: string): Promise<void> {
  const calendars = calendarsOf(dw.harness);
  const _id = `${tenant}|transport-resource|${truck}`;
  const current = await calendars.findOne({ _id });
  if (current === null) throw new Error(`no calendar ${_id}`);
  const aged = (entry: CalendarEntry) => entry.deployment === deployment && entry.write !== undefined;
  const entries = current.entries.map((entry) => (aged(entry) ? { ...entry, since: staleSince() } : entry));
  const next = { entries, version: current.version + 1 };
  const { modifiedCount } = await calendars.updateOne({ _id, version: current.version }, { $set: next });
  if (modifiedCount !== 1) throw new Error(`calendar ${_id} changed meanwhile`);
}

function expectConflict(response: LightMyRequestResponse, other: string): void {
  expect(response.statusCode, response.body).toBe(409);
  expect(json(response).conflicting_id).toBe(other);
}

describe('a stale pending entry of a deployment that was never committed', () => {
  it('no longer holds the resource: an overlapping deployment is created, and the entry is gone', async () => {
    const { tenant, client } = await dw.tenantWith('crash_uncommitted', 1, 1);
    // a create that crashed after holding the truck, before its commit
    await plantStale(tenant, 'crashed', at(8), at(16), [['transport-resource', 't-0']]);
    const response = await client.put('next', spanBody('e-0', ['t-0'], at(10), at(12)));
    expect(response.statusCode, response.body).toBe(201);
    expect((await calendarEntries(dw.harness, tenant, 'transport-resource', 't-0')).map(({ deployment }) => deployment)).toEqual(['next']);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });

  it('on every resource it held: employee and trucks, whatever the order of the new write', async () => {
    const { tenant, client } = await dw.tenantWith('crash_uncommitted_all', 2, 3);
    await plantStale(tenant, 'crashed', at(8), at(16), [...E0_AND_T0, ['transport-resource', 't-1']]);
    expect((await client.put('a', spanBody('e-1', ['t-2', 't-1'], at(9), at(10)))).statusCode).toBe(201);
    expect((await client.put('b', spanBody('e-0', ['t-0'], at(15), at(17)))).statusCode).toBe(201);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });

  it('while fresh, still holds it (the write may yet commit): 409 naming it; once stale, it does not', async () => {
    const { tenant, client } = await dw.tenantWith('crash_fresh', 1, 1);
    const entry = pending('in-flight', at(8), at(16), new Date(Date.now() - 5_000));
    await plantEntries(dw.harness, tenant, 'transport-resource', 't-0', [entry]);
    expectConflict(await client.put('next', spanBody('e-0', ['t-0'], at(10), at(12))), 'in-flight');
    // a write that does not overlap it goes through, and leaves it alone
    expect((await client.put('later', spanBody('e-0', ['t-0'], at(16), at(18)))).statusCode).toBe(201);
    expect((await calendarEntries(dw.harness, tenant, 'transport-resource', 't-0')).map(({ deployment }) => deployment).sort()).toEqual([
      'in-flight',
      'later',
    ]);
    // 61 s and more later its writer has still not come back
    await ageEntries(tenant, 't-0', 'in-flight');
    expect((await client.put('next', spanBody('e-0', ['t-0'], at(10), at(12)))).statusCode).toBe(201);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });

  it('of a deployment that was deleted (a delete that crashed after its removal): frees the resource', async () => {
    // the delete held its pending entries, removed the deployment, and crashed before reconciling
    const { tenant, client } = await afterCrashedWrite('crash_delete', 'gone', [at(8), at(16)], [at(8), at(16)]);
    await dw.harness.service.collections.deployments.remove({ tenant, key: 'gone' });
    expect((await client.put('next', spanBody('e-1', ['t-0'], at(8), at(16)))).statusCode).toBe(201);
    // and the employee, on another truck
    expect((await client.put('next-e', spanBody('e-0', ['t-1'], at(8), at(16)))).statusCode).toBe(201);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });
});

describe('a stale pending entry of a deployment that was committed', () => {
  it('keeps holding the committed span (a crash after the commit, before the reconcile): 409 naming it', async () => {
    const { tenant, client } = await dw.tenantWith('crash_committed', 2, 2);
    expect((await client.put('kept', spanBody('e-0', ['t-0'], at(8), at(16)))).statusCode).toBe(201);
    // what the crash left: on each calendar only the pending entry of the write, no committed one
    const calendars = calendarsOf(dw.harness);
    for (const id of [`${tenant}|employee|e-0`, `${tenant}|transport-resource|t-0`]) {
      const entries = [pending('kept', at(8), at(16), staleSince())];
      const { modifiedCount } = await calendars.updateOne({ _id: id }, { $set: { entries }, $inc: { version: 1 } });
      expect(modifiedCount).toBe(1);
    }
    expectConflict(await client.put('other', spanBody('e-1', ['t-0'], at(10), at(12))), 'kept');
    expectConflict(await client.put('other', spanBody('e-0', ['t-1'], at(15), at(17))), 'kept');
    expect((await client.get('other')).statusCode).toBe(404);
    // a write that goes through on those calendars leaves them reconciled: the committed span, nothing pending
    expect((await client.put('other', spanBody('e-0', ['t-0'], at(16), at(18)))).statusCode).toBe(201);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
    expectConflict(await client.put('third', spanBody('e-1', ['t-0'], at(15), at(16))), 'kept');
  });

  it('of an update to another time on the same resources: the new span holds, the old one is free', async () => {
    // the update to 14-18 held its pending entries, committed, and crashed before reconciling
    const { tenant, client } = await afterCrashedWrite('crash_retimed', 'moved', [at(8), at(12)], [at(14), at(18)]);
    await dw.harness.service.collections.deployments.put({ tenant, key: 'moved' }, storedFields('e-0', ['t-0'], at(14), at(18)));
    expect((await client.put('old-time', spanBody('e-1', ['t-0'], at(8), at(12)))).statusCode).toBe(201);
    expectConflict(await client.put('new-time', spanBody('e-1', ['t-0'], at(15), at(16))), 'moved');
    expect((await client.put('old-time-e', spanBody('e-0', ['t-0'], at(12), at(14)))).statusCode).toBe(201);
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });

  it('of an update that had not committed: the old span still holds, the new one is free', async () => {
    // the update to 14-18 held its pending entries and crashed before its commit
    const { tenant, client } = await afterCrashedWrite('crash_not_retimed', 'stays', [at(8), at(12)], [at(14), at(18)]);
    expect((await client.put('new-time', spanBody('e-0', ['t-0'], at(14), at(18)))).statusCode).toBe(201);
    expectConflict(await client.put('old-time', spanBody('e-1', ['t-0'], at(11), at(13))), 'stays');
    expect(json(await client.get('stays'))).toMatchObject({ start: { at: at(8) }, end: { at: at(12) }, version: 1 });
    expect(await calendarDisagreements(dw.harness, tenant, await client.all())).toEqual([]);
  });

  // An update that moves a deployment to other resources holds pending entries only on the new ones; a
  // crash between its commit and its reconcile leaves the old truck with a committed entry of a
  // deployment that no longer takes it. That blocked the truck for good, until a write in its way began
  // checking such entries against what their deployment has committed now.
  it('of an update that moved the deployment to another truck: once stale, the old truck is free', async () => {
    const { tenant, client } = await dw.tenantWith('crash_moved_truck', 2, 2);
    expect((await client.put('moved', spanBody('e-0', ['t-0'], at(8), at(16)))).statusCode).toBe(201);
    // the update to t-1 held e-0 and t-1, committed, and crashed before reconciling t-0, e-0 and t-1
    await plantStale(tenant, 'moved', at(8), at(16), [['employee', 'e-0'], ['transport-resource', 't-1']]);
    await dw.harness.service.collections.deployments.put({ tenant, key: 'moved' }, storedFields('e-0', ['t-1'], at(8), at(16)));

    expectConflict(await client.put('on-new', spanBody('e-1', ['t-1'], at(9), at(10))), 'moved');
    const onOld = await client.put('on-old', spanBody('e-1', ['t-0'], at(9), at(10)));
    expect(onOld.statusCode, onOld.body).toBe(201);
  });
});
