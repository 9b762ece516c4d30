import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPLOYEE_EVENTS, eventSubject, TRANSPORT_RESOURCE_EVENTS, type EntityEvents, type EventEnvelope } from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { connectTestNats, startNatsServer, waitFor, type NatsServerHandle, type TestNats } from '@rm/testkit';
import { useBuiltService } from '@rm/testkit/suites/built-service';
import { employeeEvent, newTenant } from './helpers.js';
import {
  at,
  overlapsAmong,
  resourcesOf,
  spanBody,
  transportResourceEvent,
  type CalendarEntry,
  type Deployment,
} from './deployment-helpers.js';

// The built service (`npm start`), SIGKILLed in the middle of a burst of writes, then started again on
// the same database: no two deployments overlap on a resource, and once STALE_PENDING_MS (60 s) has
// passed since the kill, no resource is held by anything but what is committed. The burst creates,
// re-times and deletes deployments; it never moves one to other resources, nor writes one id twice
// at once (deployment-crash and deployment-concurrency test those).

const STALE_PENDING_MS = 60_000;
const tenant = newTenant('deployment_kill');
const EMPLOYEES = Array.from({ length: 8 }, (_, n) => `e-${n}`);
const TRUCKS = Array.from({ length: 10 }, (_, n) => `t-${n}`);
/** Who probes each resource afterwards: an employee for each truck, a truck for each employee, taking nothing else. */
const PROBE_EMPLOYEES = TRUCKS.map((truck) => `probe-${truck}`);
const PROBE_TRUCKS = EMPLOYEES.map((employee) => `probe-${employee}`);

let nats: NatsServerHandle;
let client: TestNats;

beforeAll(async () => {
  nats = await startNatsServer();
  client = await connectTestNats({ url: nats.url });
});

afterAll(async () => {
  await client?.close();
  await nats?.stop();
});

// start locations are addresses: the home-bases service is never called; every resource is known from
// its event before the burst (makeKnown): their owners are never asked either (useBuiltService points
// every owner's URL where nobody listens)
const { call, db, start: startMain } = useBuiltService({
  main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
  packageName: '@rm/deployments',
  prefix: 'deployments_kill',
  tenant,
  variables: () => ({ NATS_URL: nats.url }),
});

/** Publishes the employees and transport resources as their services do, and waits until the service knows them all. */
async function makeKnown(): Promise<void> {
  const jsm = await jetstreamManager(client.nc);
  await declareServiceStream(jsm, 'employees');
  await declareServiceStream(jsm, 'transport-resources');
  const js = jetstream(client.nc);
  const publish = (event: EventEnvelope, events: EntityEvents) =>
    js.publish(eventSubject(events, tenant, 'created'), JSON.stringify(event), { msgID: event.id });
  for (const id of [...EMPLOYEES, ...PROBE_EMPLOYEES]) await publish(employeeEvent(tenant, id, 1, 'created'), EMPLOYEE_EVENTS);
  for (const id of [...TRUCKS, ...PROBE_TRUCKS]) await publish(transportResourceEvent(tenant, id, 1, 'created'), TRANSPORT_RESOURCE_EVENTS);
  const expected = [...EMPLOYEES, ...PROBE_EMPLOYEES].map((id) => `${tenant}|employee|${id}`);
  expected.push(...[...TRUCKS, ...PROBE_TRUCKS].map((id) => `${tenant}|transport-resource|${id}`));
  const known = () => db().collection<{ _id: string }>('known_resources').countDocuments({ _id: { $in: expected } });
  await waitFor('every resource to be known', async () => (await known()) === expected.length);
}

/** The calendars' pending entries, as `<calendar> <deployment>`. */
async function pendingEntries(): Promise<string[]> {
  const calendars = await db().collection<{ _id: string; entries: CalendarEntry[] }>('calendars').find({}).toArray();
  return calendars.flatMap(({ _id, entries }) =>
    entries.filter((entry) => entry.write !== undefined).map((entry) => `${_id} ${entry.deployment}`),
  );
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** A random deployment of the burst: one employee, one to three trucks, a span of 1 to 6 hours on 2031-05-05. */
function randomBody(employee = pick(EMPLOYEES), trucks?: string[]) {
  const taken = trucks ?? [...new Set(Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => pick(TRUCKS)))];
  const start = Math.floor(Math.random() * 72) / 4;
  return { body: spanBody(employee, taken, at(start), at(start + 1 + Math.floor(Math.random() * 20) / 4)), employee, taken };
}

/**
 * Writes until stopped from `workers` loops at once: creates of new ids, re-timings of ids it created
 * (same employee and trucks) and deletes; never two writes of one id at once. Counts the answers.
 */
function burst(workers: number, prefix: string) {
  let stopped = false;
  let answers = 0;
  const created = new Map<string, { employee: string; taken: string[] }>();
  const busy = new Set<string>();
  let next = 0;
  const loop = async () => {
    while (!stopped) {
      const known = [...created.keys()].filter((id) => !busy.has(id));
      const choice = Math.random();
      try {
        if (known.length > 0 && choice < 0.25) {
          const id = pick(known);
          busy.add(id);
          const { employee, taken } = created.get(id)!;
          await call('PUT', `/deployment/${id}`, randomBody(employee, taken).body);
          busy.delete(id);
        } else if (known.length > 0 && choice < 0.4) {
          const id = pick(known);
          busy.add(id);
          const { status } = await call('DELETE', `/deployment/${id}`);
          if (status === 204) created.delete(id);
          busy.delete(id);
        } else {
          const id = `${prefix}-${(next += 1)}`;
          busy.add(id);
          const { body, employee, taken } = randomBody();
          const { status } = await call('PUT', `/deployment/${id}`, body);
          if (status === 201) created.set(id, { employee, taken });
          busy.delete(id);
        }
        answers += 1;
      } catch {
        return; // the kill cut it short
      }
    }
  };
  const running = Promise.all(Array.from({ length: workers }, loop));
  return {
    answers: () => answers,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

describe('the service killed during a burst of writes', () => {
  it('leaves no overlap, and after STALE_PENDING_MS no resource held by anything but a committed deployment', async () => {
    let killedAt = 0;
    let left: string[] = [];
    for (let attempt = 0; attempt < 5 && left.length === 0; attempt += 1) {
      const child = await startMain();
      if (attempt === 0) await makeKnown();
      const writes = burst(24, `a${attempt}`);
      await waitFor('writes to be answered', async () => writes.answers() >= 40 + attempt * 40, 30_000);
      child.kill('SIGKILL');
      killedAt = Date.now();
      await once(child, 'exit');
      await writes.stop();
      await sleep(500); // the database may still finish what the service had sent
      left = await pendingEntries();
    }
    expect(left.length, 'the kill left pending entries in the calendars').toBeGreaterThan(0);

    await startMain();
    const deployments = await listAll();
    expect(deployments.length).toBeGreaterThan(0);
    expect(overlapsAmong(deployments)).toEqual([]);

    // a while after the kill, every pending entry it left is stale: only what is committed holds
    await sleep(Math.max(0, killedAt + STALE_PENDING_MS + 2_000 - Date.now()));
    const wholeDay = [at(0), at(48)] as const;
    const holders = (resource: string) =>
      deployments.filter((deployment) => resourcesOf(deployment).includes(resource)).map(({ id }) => id);
    const wrong: string[] = [];
    const probes = [
      ...TRUCKS.map((truck, n) => ({ resource: `transport-resource|${truck}`, body: spanBody(PROBE_EMPLOYEES[n]!, [truck], ...wholeDay) })),
      ...EMPLOYEES.map((employee, n) => ({ resource: `employee|${employee}`, body: spanBody(employee, [PROBE_TRUCKS[n]!], ...wholeDay) })),
    ];
    for (const [n, { resource, body }] of probes.entries()) {
      const held = holders(resource);
      const { status, body: answer } = await call('PUT', `/deployment/probe-${n}`, body);
      const conflicting = (answer as { conflicting_id?: string }).conflicting_id;
      if (held.length === 0 && status !== 201) wrong.push(`${resource}: free, but ${status} ${JSON.stringify(answer)}`);
      if (held.length > 0 && (status !== 409 || !held.includes(conflicting ?? ''))) {
        wrong.push(`${resource}: held by ${held.join(', ')}, but ${status} ${JSON.stringify(answer)}`);
      }
    }
    expect(wrong).toEqual([]);
    // the reads after the restart still see no overlap, and the probes that went through changed none of it
    expect(overlapsAmong(await listAll())).toEqual([]);
  }, 240_000);
});

async function listAll(): Promise<Deployment[]> {
  const found: Deployment[] = [];
  let query = '?limit=1000';
  for (;;) {
    const { status, body } = await call('GET', `/deployment${query}`);
    expect(status).toBe(200);
    const page = body as { deployments: Deployment[]; cursors: { next?: string } };
    found.push(...page.deployments);
    if (page.cursors.next === undefined) return found;
    query = `?limit=1000&cursor=${encodeURIComponent(page.cursors.next)}`;
  }
}
