import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connectTestNats, startMongoServer, uniqueName, waitFor, type RestartableServerHandle, type TestNats } from '@rm/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumerRunner, declareServiceStream, type ConsumerRunner } from '../src/index.js';
import { consumerSettled, publishEvent, readDeadLetter, runnerParts, testStore, widgetEvent, widgetEvents } from './helpers.js';

// Reproduced on the runner before this one: during an outage each event used up its delivery
// attempts within a second and was dead-lettered, though nothing was wrong with it.
describe('a consumer whose database goes away', () => {
  let server: RestartableServerHandle;
  let client: MongoClient;
  let nats: TestNats;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let stream: string;
  let service: string;
  let runner: ConsumerRunner | undefined;
  let durable: string;
  let derived: ReturnType<typeof derivedState>;
  /** The handler of `w-mid` tells the test it is there, then waits until the test took the database away. */
  let midHandler: { reached(): void; released: Promise<void> } | undefined;

  /** What the consumer derives, in a store collection of the same database, as in a real consumer. */
  function derivedState(db: ReturnType<MongoClient['db']>) {
    // during an outage its writes fail with the store's own error, not the driver's
    return testStore(db).collection<{ version: number; delivery: number }>({
      name: 'derived',
      events: widgetEvents(service),
      represent: (resource) => ({ key: resource.key, ...resource.body }),
    });
  }

  beforeAll(async () => {
    server = await startMongoServer();
    // fail fast while the server is away, so that the test does not wait out the driver's default
    client = new MongoClient(server.url, { serverSelectionTimeoutMS: 300 });
    await client.connect();
    nats = await connectTestNats();
    js = jetstream(nats.nc);
    jsm = await jetstreamManager(nats.nc);
    service = uniqueName('outage').toLowerCase();
    stream = (await declareServiceStream(jsm, service)).config.name;
  });

  afterAll(async () => {
    await runner?.stop();
    await jsm?.streams.delete(stream);
    await nats?.close();
    await client?.close();
    await server?.stop();
  });

  it('holds its events without using up their attempts, turns unready, and handles them all once it is back', { timeout: 60_000 }, async () => {
    const db = client.db('consumer');
    derived = derivedState(db);
    durable = uniqueName('outage_consumer');
    runner = createConsumerRunner({
      js,
      stream,
      ...runnerParts(db, durable),
      filterSubjects: [`rm.${service}.*.widget.*`],
      maxDeliver: 3,
      nakDelaysMs: [50],
      ackWaitMs: 2_000,
      outageRetryDelaysMs: [100, 200],
      handle: async (event, { deliveryCount }) => {
        if (event.entity_id === 'w-mid' && midHandler !== undefined) {
          midHandler.reached();
          await midHandler.released;
        }
        await derived.put({ tenant: event.tenant, key: event.entity_id }, { version: event.version, delivery: deliveryCount });
      },
    });
    await runner.start();
    const before = widgetEvent(service, 'w-before', 1, 'created');
    await publishEvent(js, before.subject, before.event);
    await waitFor('the first event to be handled', async () => (await derived.get({ tenant: 'tenant-a', key: 'w-before' })) !== null);
    await expect(runner.readiness()).resolves.toBeUndefined();

    await server.kill();
    const during = Array.from({ length: 5 }, (_, index) => widgetEvent(service, `w-${index}`, 1, 'created'));
    for (const { subject, event } of during) await publishEvent(js, subject, event);
    await waitFor('the runner to turn unready', async () => runner!.readiness().then(() => false, () => true));
    // longer than the ack wait and than every nak delay times maxDeliver: the old runner dead-lettered in ~1 s
    await sleep(3_000);
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();
    await expect(runner.readiness()).rejects.toThrow(/waits for its database/);

    await server.start();
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable), 30_000);
    await expect(runner.readiness()).resolves.toBeUndefined();
    const handled = await Promise.all(during.map(({ event }) => derived.get({ tenant: 'tenant-a', key: event.entity_id })));
    // each handled on its first delivery: holding them cost no attempt
    expect(handled.map((resource) => [resource?.key, resource?.body.version, resource?.body.delivery]).sort()).toEqual(
      during.map(({ event }) => [event.entity_id, 1, 1]).sort(),
    );
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();
  });

  // Reproduced before the fix: the store answers an outage with DatabaseUnavailableError, which the
  // runner did not take for one; the handler's failure cost the event a delivery attempt.
  it('holds an event whose handler meets the outage half way, spending no attempt on it', { timeout: 60_000 }, async () => {
    let reached: () => void = () => {};
    let release: () => void = () => {};
    const handlerReached = new Promise<void>((resolve) => (reached = resolve));
    midHandler = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
    const mid = widgetEvent(service, 'w-mid', 1, 'created');
    await publishEvent(js, mid.subject, mid.event);
    await handlerReached;
    await server.kill();
    release();
    await waitFor('the runner to turn unready', async () => runner!.readiness().then(() => false, () => true));
    await sleep(1_000);
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();

    await server.start();
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable), 30_000);
    expect((await derived.get({ tenant: 'tenant-a', key: 'w-mid' }))?.body).toEqual({ version: 1, delivery: 1 });
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();
  });
});
