import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { OUTBOX_FIELD, type EventEnvelope } from '@rm/contracts';
import { createDocumentLocks } from '@rm/store';
import { connectTestMongo, connectTestNats, uniqueName, waitFor, type TestMongo, type TestNats } from '@rm/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOutboxRelay, declareServiceStream, type OutboxRelay } from '../src/index.js';
import { silentLogger, widgetStore } from './helpers.js';

describe('outbox relay', () => {
  let mongo: TestMongo;
  let nats: TestNats;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let relays: OutboxRelay[] = [];
  const streams: string[] = [];

  beforeAll(async () => {
    mongo = await connectTestMongo('bus_relay');
    nats = await connectTestNats();
    js = jetstream(nats.nc);
    jsm = await jetstreamManager(nats.nc);
  });

  afterEach(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    relays = [];
  });

  afterAll(async () => {
    await Promise.all(streams.map((name) => jsm.streams.delete(name)));
    await nats?.close();
    await mongo?.close();
  });

  /** A fresh service stream and widget collection, with a relay over it that is not started yet. */
  async function setUp(publisher: Pick<JetStreamClient, 'publish'> = js) {
    const service = uniqueName('relay').toLowerCase();
    const stream = (await declareServiceStream(jsm, service)).config.name;
    streams.push(stream);
    const locks = createDocumentLocks();
    const widgets = widgetStore(mongo.db, service, locks, uniqueName('widgets'));
    await widgets.declareIndexes();
    const relay = createOutboxRelay({ outbox: widgets.outbox, js: publisher, logger: silentLogger(), sweepIntervalMs: 50 });
    relays.push(relay);
    return { stream, widgets, relay };
  }

  async function streamEvents(stream: string): Promise<{ event: EventEnvelope & { subject?: string }; msgID: string | undefined }[]> {
    const { state } = await jsm.streams.info(stream);
    const events = [];
    for (let seq = state.first_seq; seq <= state.last_seq; seq += 1) {
      const stored = await jsm.streams.getMessage(stream, { seq });
      if (stored) events.push({ event: stored.json<EventEnvelope>(), msgID: stored.header.get('Nats-Msg-Id') });
    }
    return events;
  }

  it("publishes a document's events in version order, each under its id, and then removes the outbox", async () => {
    const { stream, widgets, relay } = await setUp();
    for (const color of ['red', 'green', 'blue']) await widgets.write('tenant-a', 'w1', { color });
    const waiting = (await widgets.collection.findOne({}))?.[OUTBOX_FIELD] ?? [];
    expect(waiting).toHaveLength(3);

    relay.start();
    await waitFor('the outbox to be cleared', async () => (await widgets.waiting()) === 0);

    const published = await streamEvents(stream);
    expect(published.map(({ event }) => event.version)).toEqual([1, 2, 3]);
    expect(published.map(({ msgID }) => msgID)).toEqual(waiting.map((entry) => entry.id));
    // the subject travels as the message's subject, not in the envelope
    expect(published.map(({ event }) => event)).toEqual(waiting.map(({ subject: _subject, ...envelope }) => envelope));
    expect(await widgets.collection.findOne({})).not.toHaveProperty(OUTBOX_FIELD);
  });

  it('never publishes a later event of a document before an earlier one that failed, and retries it', async () => {
    const failedOnce = new Set<string>();
    let failing: string | undefined;
    const flaky: Pick<JetStreamClient, 'publish'> = {
      async publish(subject, payload, options) {
        const msgID = options?.msgID;
        if (msgID !== undefined && msgID === failing && !failedOnce.has(msgID)) {
          failedOnce.add(msgID);
          throw new Error('publish timed out');
        }
        return js.publish(subject, payload, options);
      },
    };
    const { stream, widgets, relay } = await setUp(flaky);
    for (const color of ['red', 'green', 'blue']) await widgets.write('tenant-a', 'w1', { color });
    await widgets.write('tenant-a', 'w2', { color: 'black' });
    failing = (await widgets.collection.findOne({ key: 'w1' }))?.[OUTBOX_FIELD]?.[1]?.id;

    relay.start();
    await waitFor('every outbox to be cleared', async () => (await widgets.waiting()) === 0);

    expect(failedOnce).toEqual(new Set([failing]));
    const published = await streamEvents(stream);
    const w1 = published.filter(({ event }) => event.entity_id === 'w1').map(({ event }) => event.version);
    expect(w1).toEqual([1, 2, 3]);
    expect(published.filter(({ event }) => event.entity_id === 'w2')).toHaveLength(1);
  });

  it('removes an outbox that a crash left empty', async () => {
    const { widgets, relay } = await setUp();
    await widgets.write('tenant-a', 'w1', { color: 'red' });
    await widgets.collection.updateOne({}, { $pop: { [OUTBOX_FIELD]: -1 } });
    expect(await widgets.collection.findOne({})).toHaveProperty(OUTBOX_FIELD, []);

    relay.start();
    await waitFor('the empty outbox to be removed', async () => (await widgets.waiting()) === 0);
  });
});
