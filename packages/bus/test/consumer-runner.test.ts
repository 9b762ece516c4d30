import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connectTestMongo, connectTestNats, uniqueName, waitFor, type TestMongo, type TestNats } from '@rm/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CONSUMED_VERSIONS_COLLECTION,
  createConsumerRunner,
  declareServiceStream,
  PermanentEventError,
  type ConsumerRunner,
  type EventHandler,
} from '../src/index.js';
import { consumerSettled, handledLog, publishEvent, readDeadLetter, silentLogger, widgetEvent } from './helpers.js';

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

  /** A runner on its own durable, which only sees the events of one entity id. */
  async function startRunner(entityId: string, handle: EventHandler, maxDeliver = 3): Promise<string> {
    const durable = uniqueName('consumer');
    const runner = createConsumerRunner({
      js,
      db: mongo.db,
      stream,
      durable,
      filterSubjects: [`rm.${service}.widget.*`],
      logger: silentLogger(),
      maxDeliver,
      nakDelaysMs: [50],
      handle: (event, context) => (event.entity_id === entityId ? handle(event, context) : Promise.resolve()),
    });
    runners.push(runner);
    await runner.start();
    return durable;
  }

  it('gives a consumer that throws the event again', async () => {
    const handled = handledLog(mongo.db, uniqueName('handled'));
    const attempts: number[] = [];
    const durable = await startRunner('flaky', async (event, { deliveryCount }) => {
      attempts.push(deliveryCount);
      if (deliveryCount === 1) throw new Error('database briefly unavailable');
      await handled.record(event, deliveryCount);
    });
    const { subject, event } = widgetEvent(service, 'flaky', 1, 'created');
    await publishEvent(js, subject, event);

    await waitFor('the event to be handled', async () => (await handled.count()) === 1);
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(attempts).toEqual([1, 2]);
    expect(await handled.all()).toEqual([{ event_id: event.id, entity_id: 'flaky', version: 1, delivery: 2 }]);
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();
  });

  it('ends an event whose consumer always throws in a dead-letter record, after maxDeliver attempts', async () => {
    const attempts: number[] = [];
    const durable = await startRunner('poison', async (_event, { deliveryCount }) => {
      attempts.push(deliveryCount);
      throw new Error('cannot apply this event');
    });
    const { subject, event } = widgetEvent(service, 'poison', 1, 'created');
    await publishEvent(js, subject, event);

    const record = await waitFor('the dead-letter record', () => readDeadLetter(jsm, durable));
    expect(record).toMatchObject({
      consumer: durable,
      stream,
      subject,
      deliveries: 3,
      error: 'cannot apply this event',
      event,
    });
    expect(Date.parse(record.recorded_at)).not.toBeNaN();
    // settled: nothing pending and nothing unacknowledged, so no fourth delivery can come
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('dead-letters at once an event its handler declares permanently failed', async () => {
    const attempts: number[] = [];
    const durable = await startRunner('refused', async (_event, { deliveryCount }) => {
      attempts.push(deliveryCount);
      throw new PermanentEventError('the referenced vehicle does not exist');
    });
    const { subject, event } = widgetEvent(service, 'refused', 1, 'created');
    await publishEvent(js, subject, event);

    const record = await waitFor('the dead-letter record', () => readDeadLetter(jsm, durable));
    expect(record).toMatchObject({ deliveries: 1, error: 'the referenced vehicle does not exist', event });
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(attempts).toEqual([1]);
  });

  it('skips an event older than the version it already applied', async () => {
    const handled = handledLog(mongo.db, uniqueName('handled'));
    const durable = await startRunner('ordered', async (event, { deliveryCount }) => void (await handled.record(event, deliveryCount)));
    const newer = widgetEvent(service, 'ordered', 2);
    const older = widgetEvent(service, 'ordered', 1, 'created');
    await publishEvent(js, newer.subject, newer.event);
    await publishEvent(js, older.subject, older.event);

    await waitFor('the consumer to settle', async () => (await handled.count()) >= 1 && consumerSettled(jsm, stream, durable)());
    expect((await handled.all()).map((record) => record.version)).toEqual([2]);
    const ledgerId = `${durable}|tenant-a|widget|ordered`;
    const ledger = mongo.db.collection<{ _id: string; version: number }>(CONSUMED_VERSIONS_COLLECTION);
    expect(await ledger.findOne({ _id: ledgerId })).toEqual({ _id: ledgerId, version: 2 });
  });

  it('dead-letters a message that is not a valid event without calling the handler', async () => {
    const calls: string[] = [];
    const durable = uniqueName('strict');
    const runner = createConsumerRunner({
      js,
      db: mongo.db,
      stream,
      durable,
      filterSubjects: [`rm.${service}.gadget.*`],
      logger: silentLogger(),
      maxDeliver: 3,
      nakDelaysMs: [50],
      handle: async (event) => void calls.push(event.id),
    });
    runners.push(runner);
    await runner.start();

    await js.publish(`rm.${service}.gadget.created`, '{not json', { msgID: uniqueName('raw') });
    const notJson = await waitFor('the dead-letter record', () => readDeadLetter(jsm, durable));
    expect(notJson).toMatchObject({ deliveries: 1, event: '{not json', error: expect.stringContaining('not JSON') });

    const { event } = widgetEvent(service, 'g1', 1, 'created');
    const noVersion = { ...event, version: 0 };
    await publishEvent(js, `rm.${service}.gadget.created`, noVersion);
    const invalid = await waitFor('the second dead-letter record', async () => {
      const record = await readDeadLetter(jsm, durable);
      return record?.stream_sequence !== notJson.stream_sequence ? record : undefined;
    });
    expect(invalid).toMatchObject({ deliveries: 1, event: noVersion, error: expect.stringContaining('version') });
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect(calls).toEqual([]);
  });

  it('declares its consumer again when it was deleted, and goes on handling each event once', async () => {
    const handled = handledLog(mongo.db, uniqueName('handled'));
    const durable = await startRunner('survivor', async (event, { deliveryCount }) => void (await handled.record(event, deliveryCount)));
    const first = widgetEvent(service, 'survivor', 1, 'created');
    await publishEvent(js, first.subject, first.event);
    await waitFor('the first event to be handled', async () => (await handled.count()) === 1);

    await jsm.consumers.delete(stream, durable);
    const second = widgetEvent(service, 'survivor', 2);
    await publishEvent(js, second.subject, second.event);

    await waitFor('the second event to be handled', async () => (await handled.count()) >= 2);
    // the recreated durable starts from the stream's beginning: the version ledger skips what was applied
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));
    expect((await handled.all()).map((record) => record.event_id)).toEqual([first.event.id, second.event.id]);
  });
});
