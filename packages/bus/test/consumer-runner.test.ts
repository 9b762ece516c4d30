import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { AppliedVersions } from '@rm/contracts';
import { connectTestMongo, connectTestNats, uniqueName, waitFor, type TestMongo, type TestNats } from '@rm/testkit';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createConsumerRunner,
  declareServiceStream,
  PermanentEventError,
  type ConsumerRunner,
  type BatchEventHandler,
  type ConsumerRunnerSettings,
  type EventHandler,
} from '../src/index.js';
import { consumerSettled, handledLog, publishEvent, readDeadLetter, runnerParts, widgetEvent } from './helpers.js';

describe('consumer runner', () => {
  let mongo: TestMongo;
  let nats: TestNats;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let service: string;
  let stream: string;
  let runners: ConsumerRunner[] = [];

  beforeAll(async () => {
    mongo = await connectTestMongo('bus_runner');
    nats = await connectTestNats();
    js = jetstream(nats.nc);
    jsm = await jetstreamManager(nats.nc);
    service = uniqueName('runner').toLowerCase();
    stream = (await declareServiceStream(jsm, service)).config.name;
  });

  afterEach(async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
    runners = [];
  });

  afterAll(async () => {
    await jsm?.streams.delete(stream);
    await nats?.close();
    await mongo?.close();
  });

  /** A runner on its own durable over `entity` events, with its ledger in the test database. */
  async function startRunner(
    handling: EventHandler | { handleBatch: BatchEventHandler },
    options: Partial<ConsumerRunnerSettings> & { entity?: string } = {},
  ): Promise<string> {
    const durable = uniqueName('consumer');
    const { entity = 'widget', ...overrides } = options;
    const runner = createConsumerRunner({
      js,
      stream,
      ...runnerParts(mongo.db, durable),
      filterSubjects: [`rm.${service}.*.${entity}.*`],
      maxDeliver: 3,
      nakDelaysMs: [50],
      ...(typeof handling === 'function' ? { handle: handling } : handling),
      ...overrides,
    });
    runners.push(runner);
    await runner.start();
    return durable;
  }

  /** A handler that only sees the events of one entity id (each test has its own). */
  const only = (entityId: string, handle: EventHandler): EventHandler => async (event, context) => {
    if (event.entity_id === entityId) await handle(event, context);
  };

  it('gives a consumer that throws the event again', async () => {
    const handled = handledLog(mongo.db, uniqueName('handled'));
    const attempts: number[] = [];
    const durable = await startRunner(only('flaky', async (event, { deliveryCount }) => {
      attempts.push(deliveryCount);
      if (deliveryCount === 1) throw new Error('briefly unable to apply');
      await handled.record(event, deliveryCount);
    }));
    const { subject, event } = widgetEvent(service, 'flaky', 1, 'created');
    await publishEvent(js, subject, event);

    await waitFor('the event to be handled', async () => (await handled.count()) === 1);
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(attempts).toEqual([1, 2]);
    expect(await handled.all()).toEqual([{ event_id: event.id, entity_id: 'flaky', version: 1, delivery: 2 }]);
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();
  });

  it("logs a failed event with the message's and the event's fields, and gives its handler a logger with them", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const durable = await startRunner(
      only('logged', async (_event, context) => {
        context.logger.info('handling');
        if (context.deliveryCount === 1) throw new Error('briefly unable to apply');
      }),
      { logger },
    );
    const { subject, event } = widgetEvent(service, 'logged', 1, 'created');
    await publishEvent(js, subject, event);

    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    const fields = { subject, stream_sequence: expect.any(Number), event_id: event.id, event_type: event.type, entity_id: 'logged', version: 1 };
    expect(lines.filter((line) => line.msg === 'handling')).toEqual([
      expect.objectContaining({ ...fields, deliveries: 1 }),
      expect.objectContaining({ ...fields, deliveries: 2 }),
    ]);
    expect(lines.filter((line) => line.msg === 'event handling failed, will retry')).toEqual([expect.objectContaining({ ...fields, deliveries: 1, delay_ms: 50 })]);
  });

  it('ends an event whose consumer always throws in a dead-letter record, after maxDeliver attempts', async () => {
    const attempts: number[] = [];
    const durable = await startRunner(only('poison', async (_event, { deliveryCount }) => {
      attempts.push(deliveryCount);
      throw new Error('cannot apply this event');
    }));
    const { subject, event } = widgetEvent(service, 'poison', 1, 'created');
    await publishEvent(js, subject, event);

    const record = await waitFor('the dead-letter record', () => readDeadLetter(jsm, durable));
    expect(record).toMatchObject({ consumer: durable, stream, subject, deliveries: 3, error: 'cannot apply this event', event });
    expect(Date.parse(record.recorded_at)).not.toBeNaN();
    // settled: nothing pending and nothing unacknowledged, so no fourth delivery can come
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('dead-letters at once an event its handler declares permanently failed', async () => {
    const attempts: number[] = [];
    const durable = await startRunner(only('refused', async (_event, { deliveryCount }) => {
      attempts.push(deliveryCount);
      throw new PermanentEventError('the referenced vehicle does not exist');
    }));
    const { subject, event } = widgetEvent(service, 'refused', 1, 'created');
    await publishEvent(js, subject, event);

    const record = await waitFor('the dead-letter record', () => readDeadLetter(jsm, durable));
    expect(record).toMatchObject({ deliveries: 1, error: 'the referenced vehicle does not exist', event });
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(attempts).toEqual([1]);
  });

  it('hands a batch handler the newer events of every entity in stream order, and all of them again after it throws', async () => {
    const prefix = uniqueName('batched');
    const [a, b] = [`${prefix}-a`, `${prefix}-b`];
    // in the stream before the runner starts, so that they come in one batch: a repeated and an older one among them
    const published = [widgetEvent(service, a, 1, 'created'), widgetEvent(service, b, 1, 'created'), widgetEvent(service, a, 2)];
    published.push(published[1]!, published[0]!);
    for (const { subject, event } of published) await publishEvent(js, subject, event);
    const calls: string[][] = [];
    const durable = await startRunner({
      async handleBatch(events) {
        const mine = events.filter(({ event }) => event.entity_id.startsWith(prefix));
        if (mine.length === 0) return;
        calls.push(mine.map(({ event }) => `${event.entity_id.slice(prefix.length + 1)}@${event.version}`));
        if (calls.length === 1) throw new Error('briefly unable to apply');
      },
    });

    await waitFor('the batch applied', async () => calls.length >= 2 && consumerSettled(jsm, stream, durable)());
    expect(calls[0]).toEqual(['a@1', 'b@1', 'a@2']);
    expect(calls.slice(1).flat().sort()).toEqual(['a@1', 'a@2', 'b@1']);
    const { applied } = runnerParts(mongo.db, durable);
    const refs = [a, b].map((entityId) => ({ tenant: 'tenant-a', entity: 'widget', entityId }));
    expect([...(await applied.read(refs)).values()].sort()).toEqual([1, 2]);
  });

  it('skips an event older than the version it already applied', async () => {
    const handled = handledLog(mongo.db, uniqueName('handled'));
    const durable = await startRunner(only('ordered', async (event, { deliveryCount }) => void (await handled.record(event, deliveryCount))));
    const newer = widgetEvent(service, 'ordered', 2);
    const older = widgetEvent(service, 'ordered', 1, 'created');
    await publishEvent(js, newer.subject, newer.event);
    await publishEvent(js, older.subject, older.event);

    await waitFor('the consumer to settle', async () => (await handled.count()) >= 1 && consumerSettled(jsm, stream, durable)());
    expect((await handled.all()).map((record) => record.version)).toEqual([2]);
    const { applied } = runnerParts(mongo.db, durable);
    expect([...(await applied.read([{ tenant: 'tenant-a', entity: 'widget', entityId: 'ordered' }])).values()]).toEqual([2]);
  });

  // Reproduced on the runner before this one: v3 was applied, then v2 landed over it (state v2, ledger v3).
  it('applies the versions of one entity in order even when it handles many events at once', async () => {
    const derived = mongo.db.collection<{ _id: string; version: number }>(uniqueName('derived'));
    const durable = await startRunner(
      only('in-order', async (event) => {
        if (event.version === 2) await sleep(300); // an older event that takes longer than the newer one
        await derived.updateOne({ _id: event.entity_id }, { $set: { version: event.version } }, { upsert: true });
      }),
      { concurrency: 4 },
    );
    for (const version of [1, 2, 3]) {
      const { subject, event } = widgetEvent(service, 'in-order', version);
      await publishEvent(js, subject, event);
    }
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(await derived.findOne({ _id: 'in-order' })).toEqual({ _id: 'in-order', version: 3 });
  });

  it('acknowledges the events it ignores without handing them on, and without reading or raising their versions', async () => {
    const prefix = uniqueName('ignored');
    const [a, b] = [`${prefix}-a`, `${prefix}-b`];
    const ledger = runnerParts(mongo.db, uniqueName('ledger')).applied;
    const asked: string[] = [];
    const watched: AppliedVersions = {
      read: (entities) => (asked.push(...entities.map((entity) => entity.entityId)), ledger.read(entities)),
      record: (applied) => ledger.record(applied),
      ping: () => ledger.ping(),
    };
    const handled: string[] = [];
    const durable = await startRunner(
      async (event) => {
        if (event.entity_id.startsWith(prefix)) handled.push(`${event.entity_id}@${event.version}`);
      },
      { applied: watched, ignores: (event) => event.version === 1 },
    );
    for (const [entityId, version] of [[a, 1], [a, 2], [b, 1]] as const) {
      const { subject, event } = widgetEvent(service, entityId, version, version === 1 ? 'created' : 'updated');
      await publishEvent(js, subject, event);
    }

    await waitFor('the consumer to settle', async () => handled.length >= 1 && consumerSettled(jsm, stream, durable)());
    expect(handled).toEqual([`${a}@2`]);
    expect(asked.filter((entityId) => entityId.startsWith(prefix))).toEqual([a]);
    const refs = [a, b].map((entityId) => ({ tenant: 'tenant-a', entity: 'widget', entityId }));
    expect(await ledger.read(refs)).toEqual(new Map([[`tenant-a|widget|${a}`, 2]]));
  });

  it('handles a backlog in batches: one ledger read and one write per batch, entities side by side, each in order', async () => {
    const durable = uniqueName('batched');
    const parts = runnerParts(mongo.db, durable);
    const calls = { read: 0, record: 0 };
    const counted: AppliedVersions = {
      read: (entities) => ((calls.read += 1), parts.applied.read(entities)),
      record: (applied) => ((calls.record += 1), parts.applied.record(applied)),
      ping: () => parts.applied.ping(),
    };
    const seen = new Map<string, number[]>();
    let running = 0;
    let mostAtOnce = 0;
    // published before the runner starts: it finds a backlog of 20 entities × 10 versions
    for (let version = 1; version <= 10; version += 1) {
      for (let entity = 0; entity < 20; entity += 1) {
        const { subject, event } = widgetEvent(service, `b-${entity}`, version);
        await publishEvent(js, subject, event);
      }
    }
    const runner = createConsumerRunner({
      js,
      stream,
      ...parts,
      applied: counted,
      filterSubjects: [`rm.${service}.*.widget.*`],
      maxDeliver: 3,
      nakDelaysMs: [50],
      concurrency: 8,
      batchSize: 100,
      handle: async (event) => {
        if (!event.entity_id.startsWith('b-')) return;
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await sleep(1);
        seen.set(event.entity_id, [...(seen.get(event.entity_id) ?? []), event.version]);
        running -= 1;
      },
    });
    runners.push(runner);
    await runner.start();

    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    for (let entity = 0; entity < 20; entity += 1) expect(seen.get(`b-${entity}`)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(mostAtOnce).toBeGreaterThan(1);
    expect(mostAtOnce).toBeLessThanOrEqual(8);
    // every message of the stream so far, in batches of at most 100: a handful of reads, not hundreds
    const delivered = (await jsm.consumers.info(stream, durable)).delivered.stream_seq;
    expect(calls.read).toBeGreaterThanOrEqual(Math.ceil(delivered / 100));
    expect(calls.read).toBeLessThan(delivered / 10);
    expect(calls.record).toBeLessThanOrEqual(calls.read);
  });

  it('handles the next batch while the ledger write of the one before is still running, keeping each entity in order', async () => {
    const durable = uniqueName('pipelined');
    const parts = runnerParts(mongo.db, durable);
    const trace: string[] = [];
    let slowWriteStarted: () => void = () => {};
    const slowWrite = new Promise<void>((resolve) => (slowWriteStarted = resolve));
    // the stream holds other tests' events too: the write of the batch with p-1@1 is the slow one
    const slowWrites: AppliedVersions = {
      read: (entities) => parts.applied.read(entities),
      ping: () => parts.applied.ping(),
      async record(applied) {
        const slow = applied.some((entity) => entity.entityId === 'p-1' && entity.version === 1);
        if (slow) {
          trace.push('slow write started');
          slowWriteStarted();
          await sleep(400);
        }
        await parts.applied.record(applied);
        if (slow) trace.push('slow write done');
      },
    };
    const runner = createConsumerRunner({
      js,
      stream,
      ...parts,
      applied: slowWrites,
      filterSubjects: [`rm.${service}.*.widget.*`],
      maxDeliver: 3,
      nakDelaysMs: [50],
      handle: async (event) => {
        if (event.entity_id.startsWith('p-')) trace.push(`handled ${event.entity_id}@${event.version}`);
      },
    });
    runners.push(runner);
    await runner.start();

    const first = widgetEvent(service, 'p-1', 1, 'created');
    await publishEvent(js, first.subject, first.event);
    await slowWrite;
    for (const [entity, version] of [['p-1', 2], ['p-2', 1]] as const) {
      const { subject, event } = widgetEvent(service, entity, version);
      await publishEvent(js, subject, event);
    }
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));

    // the next batch was handled during the slow write, and the next write waited for it
    expect(trace.indexOf('handled p-1@2')).toBeGreaterThan(trace.indexOf('slow write started'));
    expect(trace.indexOf('handled p-1@2')).toBeLessThan(trace.indexOf('slow write done'));
    expect(await parts.applied.read([{ tenant: 'tenant-a', entity: 'widget', entityId: 'p-1' }])).toEqual(new Map([['tenant-a|widget|p-1', 2]]));
    expect(trace.filter((line) => line.startsWith('handled'))).toEqual(['handled p-1@1', 'handled p-1@2', 'handled p-2@1']);
    const recorded = await parts.applied.read(['p-1', 'p-2'].map((entityId) => ({ tenant: 'tenant-a', entity: 'widget', entityId })));
    expect([...recorded.values()]).toEqual([2, 1]);
  });

  describe('a batch handler that hands back work still under way', () => {
    // a stream of their own: what these runners are handed, and how often, is theirs alone
    let ownService: string;
    let ownStream: string;
    const ends: { resolve: () => void; reject: (error: Error) => void }[] = [];

    beforeAll(async () => {
      ownService = uniqueName('completions').toLowerCase();
      ownStream = (await declareServiceStream(jsm, ownService)).config.name;
    });
    // a runner stops once the work in hand ends
    afterEach(() => {
      for (const { resolve } of ends.splice(0)) resolve();
    });
    afterAll(async () => {
      await jsm?.streams.delete(ownStream);
    });

    /**
     * A runner whose batch handler records what it is handed and, for a batch with an entity of `held`,
     * hands back work the test ends (`ends`); the earlier tests' events come too, and end at once.
     */
    async function startHeld(held: readonly string[], isOutage: (error: unknown) => boolean = () => false) {
      const handled: string[][] = [];
      const durable = uniqueName('completing');
      const runner = createConsumerRunner({
        js,
        stream: ownStream,
        ...runnerParts(mongo.db, durable),
        isOutage,
        filterSubjects: [`rm.${ownService}.*.widget.*`],
        maxDeliver: 3,
        nakDelaysMs: [50],
        async handleBatch(events) {
          const mine = events.filter(({ event }) => held.includes(event.entity_id));
          if (mine.length === 0) return;
          handled.push(mine.map(({ event }) => `${event.entity_id}@${event.version}`));
          return { completed: new Promise<void>((resolve, reject) => ends.push({ resolve, reject })) };
        },
      });
      runners.push(runner);
      await runner.start();
      const info = () => jsm.consumers.info(ownStream, durable);
      return { handled, info };
    }
    const publishWidget = async (entityId: string) => {
      const { subject, event } = widgetEvent(ownService, entityId, 1, 'created');
      await publishEvent(js, subject, event);
    };

    it('handles the next batch meanwhile, and acknowledges a batch only once its work ends', async () => {
      const { handled, info } = await startHeld(['a', 'b']);
      await publishWidget('a');
      await waitFor('the first batch handled', async () => ends.length === 1);
      await publishWidget('b');
      await waitFor('the second batch handled while the first is under way', async () => ends.length === 2);
      expect((await info()).num_ack_pending).toBe(2);
      ends[0]?.resolve();
      await waitFor('the first acknowledged', async () => (await info()).num_ack_pending === 1);
      ends[1]?.resolve();
      await waitFor('the second acknowledged', async () => (await info()).num_ack_pending === 0);
      expect(handled).toEqual([['a@1'], ['b@1']]);
    });

    class Outage extends Error {}
    // the stream holds a and b before c, and c before d: each consumer is handed every event of it
    it.each([
      ['gives the batch again, redelivered, when its work fails', 'c', new Error('a write failed'), (deliveries: number) => expect(deliveries).toBeGreaterThan(3)],
      ['handles the batch again, spending no delivery, when its work meets a database outage', 'd', new Outage('the database went away'), (deliveries: number) => expect(deliveries).toBe(4)],
    ])('%s', async (_case, entity, failure, checkDeliveries) => {
      const { handled, info } = await startHeld([entity], (error) => error instanceof Outage);
      await publishWidget(entity);
      await waitFor('the batch handled', async () => ends.length === 1);
      ends[0]?.reject(failure);
      await waitFor('the batch handled again', async () => ends.length === 2);
      ends[1]?.resolve();
      await waitFor('the batch acknowledged', async () => (await info()).num_ack_pending === 0 && (await info()).num_pending === 0);
      expect(handled).toEqual([[`${entity}@1`], [`${entity}@1`]]);
      checkDeliveries((await info()).delivered.consumer_seq);
    });
  });

  // Reproduced before the fix: a batch that failed as a whole (here its ledger cannot be read) came
  // back until JetStream gave up on it, without a dead-letter record.
  it('dead-letters the events of a batch that keeps failing as a whole, on their last attempt', async () => {
    const durable = uniqueName('broken_ledger');
    const runner = createConsumerRunner({
      js,
      stream,
      ...runnerParts(mongo.db, durable),
      applied: {
        read: async () => {
          throw new Error('the ledger document is larger than 16 MB');
        },
        record: async () => undefined,
        ping: async () => undefined,
      },
      // a tenant of this test's own: the stream holds the other tests' events too
      filterSubjects: [`rm.${service}.tenant-broken.widget.*`],
      maxDeliver: 3,
      nakDelaysMs: [50],
      handle: async () => undefined,
    });
    runners.push(runner);
    await runner.start();
    const { event } = widgetEvent(service, 'broken', 1, 'created');
    const subject = `rm.${service}.tenant-broken.widget.created`;
    await publishEvent(js, subject, { ...event, tenant: 'tenant-broken' });

    const record = await waitFor('the dead-letter record', () => readDeadLetter(jsm, durable));
    expect(record).toMatchObject({ subject, deliveries: 3, error: 'the ledger document is larger than 16 MB' });
    expect(record.event).toContain(event.id);
  });

  it('dead-letters a message that is not a valid event, or not of its subject\'s tenant and type, without calling the handler', async () => {
    const calls: string[] = [];
    const durable = await startRunner(async (event) => void calls.push(event.id), { entity: 'gadget' });
    const subject = `rm.${service}.tenant-a.gadget.created`;

    await js.publish(subject, '{not json', { msgID: uniqueName('raw') });
    const notJson = await waitFor('the dead-letter record', () => readDeadLetter(jsm, durable));
    expect(notJson).toMatchObject({ deliveries: 1, event: '{not json', error: expect.stringContaining('not JSON') });

    const nextRecord = (after: number) => async () => {
      const record = await readDeadLetter(jsm, durable);
      return record !== undefined && record.stream_sequence > after ? record : undefined;
    };
    const { event } = widgetEvent(service, 'g1', 1, 'created');
    const noVersion = { ...event, type: 'gadget.created', version: 0 };
    await publishEvent(js, subject, noVersion);
    const invalid = await waitFor('the second dead-letter record', nextRecord(notJson.stream_sequence));
    expect(invalid).toMatchObject({ deliveries: 1, event: noVersion, error: expect.stringContaining('version') });

    // a valid envelope whose data breaks its entity's contract
    const badData = { ...event, type: 'gadget.created', data: { version: 1 } };
    await publishEvent(js, subject, badData, uniqueName('bad-data'));
    const broken = await waitFor('the third dead-letter record', nextRecord(invalid.stream_sequence));
    expect(broken).toMatchObject({ deliveries: 1, error: expect.stringContaining("must have required property 'key'") });

    // valid events, but of another tenant or type than the subject they came on: forged
    const otherTenant = { ...event, type: 'gadget.created', tenant: 'tenant-b' };
    await publishEvent(js, subject, otherTenant, uniqueName('other-tenant'));
    const forged = await waitFor('the fourth dead-letter record', nextRecord(broken.stream_sequence));
    expect(forged).toMatchObject({ deliveries: 1, error: expect.stringContaining(`tenant 'tenant-b' is not the tenant of its subject ${subject}`) });
    const otherType = { ...event, type: 'gadget.deleted' };
    await publishEvent(js, subject, otherType, uniqueName('other-type'));
    const retyped = await waitFor('the fifth dead-letter record', nextRecord(forged.stream_sequence));
    expect(retyped).toMatchObject({ deliveries: 1, error: expect.stringContaining(`type 'gadget.deleted' is not the type of its subject ${subject}`) });

    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(calls).toEqual([]);
  });

  it('declares its consumer again when it was deleted, and goes on handling each event once', async () => {
    const handled = handledLog(mongo.db, uniqueName('handled'));
    const durable = await startRunner(only('survivor', async (event, { deliveryCount }) => void (await handled.record(event, deliveryCount))));
    const first = widgetEvent(service, 'survivor', 1, 'created');
    await publishEvent(js, first.subject, first.event);
    await waitFor('the first event to be handled', async () => (await handled.count()) === 1);

    await jsm.consumers.delete(stream, durable);
    const second = widgetEvent(service, 'survivor', 2);
    await publishEvent(js, second.subject, second.event);

    await waitFor('the second event to be handled', async () => (await handled.count()) >= 2);
    // the recreated durable starts from the stream's beginning: the ledger skips what was applied
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect((await handled.all()).map((record) => record.event_id)).toEqual([first.event.id, second.event.id]);
  });
});
