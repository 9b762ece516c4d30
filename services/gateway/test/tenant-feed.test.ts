import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '@rm/bus';
import { FEED_STREAMS, parseTypeFilter, serviceStream } from '@rm/contracts';
import { createLogger } from '@rm/service-kit';
import { connectTestNats, startNatsServer, testNatsPassword, uniqueName, waitFor, type NatsServerHandle, type TestNats } from '@rm/testkit';
import { decodePosition } from '../src/changes/feed-position.js';
import { startStreamTails, type StreamTails } from '../src/changes/stream-tails.js';
import { openTenantFeed, type TenantFeed } from '../src/changes/tenant-feed.js';

// A tenant's history read through the feed on a nats-server of this file's own, where the test declares
// the feed's streams and publishes as their owners would; the feed reads as the gateway's NATS user.

const logger = createLogger({ level: 'silent', name: 'tenant-feed-test' });
const EMPLOYEES = FEED_STREAMS.findIndex(({ service }) => service === 'employees');
const STREAM = FEED_STREAMS[EMPLOYEES]!;
/** A history consumer of the tests is removed this soon after its last fetch. */
const IDLE_MS = 1_000;

let server: NatsServerHandle;
let admin: TestNats;
let adminJsm: JetStreamManager;
let gateway: NatsConnection;
let tails: StreamTails;
const feeds: TenantFeed[] = [];

beforeAll(async () => {
  server = await startNatsServer();
  admin = await connectTestNats({ url: server.url });
  adminJsm = await jetstreamManager(admin.nc);
  for (const { service } of FEED_STREAMS) await adminJsm.streams.add({ ...serviceStream(service), storage: 'memory' });
  gateway = await connectNats({ servers: server.url, access: { user: 'gateway', password: testNatsPassword() }, name: 'tenant-feed-test', logger, attempts: 1 });
  tails = startStreamTails({ js: jetstream(gateway), jsm: await jetstreamManager(gateway), logger, retryMs: 200 });
  await waitFor('the tails to read', async () => tails.ready());
});

afterEach(() => {
  for (const feed of feeds.splice(0)) feed.end();
});

afterAll(async () => {
  await tails?.stop();
  await gateway?.close();
  await admin?.close();
  await server?.stop();
});

/** Publishes `count` employee events of the tenant, each with some bulk, as the employees service would. */
async function publish(tenant: string, count: number, from = 1): Promise<void> {
  const js = jetstream(admin.nc);
  for (let number = from; number < from + count; number += 1) {
    const event = { id: `ev-${number}`, type: 'employee.created', tenant, entity_id: `e${number}`, version: 1, occurred_at: '2026-12-01T00:00:00Z', data: { note: 'x'.repeat(200) } };
    await js.publish(`rm.employees.${tenant}.employee.created`, JSON.stringify(event));
  }
}

/** The stream ends now, one sequence per feed stream. */
async function ends(): Promise<number[]> {
  return Promise.all(FEED_STREAMS.map(async ({ name }) => (await adminJsm.streams.info(name)).state.last_seq));
}

/** The consumers that read the tenant's history: the tails' have no filter. */
async function historyConsumers(tenant: string): Promise<string[]> {
  const names: string[] = [];
  for await (const info of adminJsm.consumers.list(STREAM.name)) if (info.config.filter_subject?.includes(`.${tenant}.`)) names.push(info.name);
  return names;
}

/** A feed of the tenant from the start of every stream; its caller reads only once `read()` is called. */
async function openFeed(tenant: string, options: { highWaterBytes?: number; historyIdleMs?: number; heartbeatMs?: number } = {}) {
  const opensAt = await ends();
  const feed = openTenantFeed({
    js: jetstream(gateway),
    tails: tails.tails,
    tenant,
    filter: (parseTypeFilter(undefined) as { ok: true; filter: (entity: string, action: string) => boolean }).filter,
    from: FEED_STREAMS.map(() => 0),
    ends: opensAt,
    until: Date.now() + 600_000,
    revoked: () => false,
    heartbeatMs: options.heartbeatMs ?? 60_000,
    highWaterBytes: options.highWaterBytes ?? 256 * 1024,
    bufferedEvents: 1_000,
    historyIdleMs: options.historyIdleMs ?? IDLE_MS,
    lastSequence: async (name) => (await adminJsm.streams.info(name)).state.last_seq,
  });
  feeds.push(feed);
  let text = '';
  return {
    feed,
    opensAt,
    /** The caller starts reading, and keeps on. */
    read: () => feed.body.on('data', (chunk: Buffer) => (text += chunk.toString('utf8'))),
    /** The entity ids of the events read, in order. */
    shown: () => [...text.matchAll(/^data: (.*)$/gm)].map(([, data]) => (JSON.parse(data!) as { entity_id: string }).entity_id),
    /** Where the last id read puts the feed in the employees' stream. */
    position(): number {
      const id = [...text.matchAll(/^id: (.*)$/gm)].at(-1)?.[1];
      return id === undefined ? 0 : decodePosition(id)![EMPLOYEES]!;
    },
  };
}

/** The feed has shown an event (its first write, the retry and position, is shorter than one) and waits for its caller. */
async function historyBegun(feed: TenantFeed): Promise<void> {
  await waitFor('the history to begin', async () => feed.body.readableLength > 200);
}

const ids = (from: number, count: number) => Array.from({ length: count }, (_unused, index) => `e${from + index}`);

describe("a change feed's history", () => {
  it('is read from the position, then the feed goes live, and no consumer of it is left behind', async () => {
    const tenant = uniqueName('t');
    await publish(tenant, 3);
    await publish(uniqueName('other'), 2);
    const { read, shown } = await openFeed(tenant);
    read();
    await waitFor('the history', async () => shown().length === 3);
    await publish(tenant, 1, 4);
    await waitFor('the live event', async () => shown().length === 4);
    expect(shown()).toEqual(ids(1, 4));
    await waitFor('the history consumer to be gone', async () => (await historyConsumers(tenant)).length === 0, 10_000);
  });

  it('leaves no consumer behind when its caller goes away in the middle of it', async () => {
    const tenant = uniqueName('t');
    await publish(tenant, 300);
    const { feed } = await openFeed(tenant, { highWaterBytes: 1_024 });
    // the caller reads nothing: the feed waits with its body full
    await historyBegun(feed);
    feed.body.destroy();
    await waitFor('the history consumer to be gone', async () => (await historyConsumers(tenant)).length === 0, 10_000);
  });

  it('goes on with a new consumer when its caller reads more slowly than a consumer may stay idle: each event once, in order', async () => {
    const tenant = uniqueName('t');
    await publish(tenant, 250);
    const { feed, read, shown } = await openFeed(tenant, { highWaterBytes: 1_024 });
    await historyBegun(feed);
    await waitFor('the idle consumer to be removed', async () => (await historyConsumers(tenant)).length === 0, 10_000);
    read();
    await waitFor('the whole history', async () => shown().length >= 250);
    await publish(tenant, 1, 251);
    await waitFor('the live event', async () => shown().length === 251);
    expect(shown()).toEqual(ids(1, 251));
  });

  it('ends when the events it has not fetched yet are removed, holding one batch meanwhile, and the feed goes live', async () => {
    const tenant = uniqueName('t');
    await publish(tenant, 250);
    // the consumer outlives the pause, and its heartbeats show where the feed is
    const { feed, opensAt, read, shown, position } = await openFeed(tenant, { highWaterBytes: 1_024, historyIdleMs: 60_000, heartbeatMs: 100 });
    await historyBegun(feed);
    await adminJsm.streams.purge(STREAM.name, { filter: `rm.employees.${tenant}.>` });
    read();
    // its next fetch gets nothing: the history has ended where the stream ended when the feed opened
    await waitFor('the end of the history', async () => position() >= opensAt[EMPLOYEES]!, 20_000);
    const history = shown();
    expect(history.length).toBeLessThan(250);
    expect(history).toEqual(ids(1, history.length));
    await publish(tenant, 1, 251);
    await waitFor('the live event', async () => shown().includes('e251'));
    expect(shown()).toEqual([...history, 'e251']);
  });
});
