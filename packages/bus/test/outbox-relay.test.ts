import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { EventEnvelope } from '@rm/contracts';
import { fromStoredEvent, OUTBOX_FIELD } from '@rm/store';
import { connectTestMongo, connectTestNats, uniqueName, waitFor, type TestMongo, type TestNats } from '@rm/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOutboxRelay, declareServiceStream, type OutboxRelay, type OutboxRelayOptions } from '../src/index.js';
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
  async function setUp(options: Partial<OutboxRelayOptions> = {}) {
    const service = uniqueName('relay').toLowerCase();
    const stream = (await declareServiceStream(jsm, service)).config.name;
    streams.push(stream);
    const widgets = widgetStore(mongo.db, service, uniqueName('widgets'));
    await widgets.declareIndexes();
    const relay = createOutboxRelay({ outbox: widgets.outbox, js, logger: silentLogger(), ...options });
    relays.push(relay);
    return { stream, widgets, relay };
  }

  async function streamEvents(stream: string): Promise<{ event: EventEnvelope; msgID: string | undefined }[]> {
    const { state } = await jsm.streams.info(stream);
    const events = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq += 1) {
      const stored = await jsm.streams.getMessage(stream, { seq });
      if (stored) events.push({ event: stored.json<EventEnvelope>(), msgID: stored.header.get('Nats-Msg-Id') });
    }
    return events;
  }

  it("publishes what earlier runs left waiting, each document's events in version order under their ids, then clears them", async () => {
    const { stream, widgets, relay } = await setUp();
    for (const color of ['red', 'green', 'blue']) await widgets.write('tenant-a', 'w1', { color });
    const waiting = ((await widgets.collection.findOne({}))?.[OUTBOX_FIELD] ?? []).map(fromStoredEvent);
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

  it('publishes the events writes hand over, without waiting for a sweep', async () => {
    // the sweep runs once at start, then not for an hour: only the hand-over can bring these
    const { stream, widgets, relay } = await setUp({ sweepIntervalMs: 3_600_000 });
    relay.start();
    await waitFor('the first sweep to find nothing', async () => (await widgets.waiting()) === 0);
    for (const key of ['h1', 'h2', 'h3']) await widgets.write('tenant-a', key, { color: 'red' });
    await widgets.write('tenant-a', 'h1', { color: 'blue' });

    await waitFor('the outbox to be cleared', async () => (await widgets.waiting()) === 0);
    const published = (await streamEvents(stream)).map(({ event }) => `${event.entity_id}@${event.version}`);
    expect(published.sort()).toEqual(['h1@1', 'h1@2', 'h2@1', 'h3@1']);
    expect(published.indexOf('h1@1')).toBeLessThan(published.indexOf('h1@2'));
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
    const { stream, widgets, relay } = await setUp({ js: flaky, retryDelayMs: 50 });
    for (const color of ['red', 'green', 'blue']) await widgets.write('tenant-a', 'w1', { color });
    await widgets.write('tenant-a', 'w2', { color: 'black' });
    failing = (await widgets.collection.findOne({ key: 'w1' }))?.[OUTBOX_FIELD]?.[1]?.id;

    relay.start();
    await waitFor('every outbox to be cleared', async () => (await widgets.waiting()) === 0);

    expect(failedOnce).toEqual(new Set([failing]));
    const published = await streamEvents(stream);
    expect(published.filter(({ event }) => event.entity_id === 'w1').map(({ event }) => event.version)).toEqual([1, 2, 3]);
    expect(published.filter(({ event }) => event.entity_id === 'w2')).toHaveLength(1);
  });

  // Reproduced before the fix: with its backlog full, failed publishes left the sweep waiting for
  // room that only a clearing made, and every later sweep awaited the stuck one; and a failed
  // sweep's quick retry was replaced by the regular interval.
  it('goes on after publishes failed with its backlog full, retrying soon rather than at the next regular sweep', async () => {
    let failUntil = Date.now() + 300;
    const failingAtFirst: Pick<JetStreamClient, 'publish'> = {
      async publish(subject, payload, options) {
        if (Date.now() < failUntil) throw new Error('no responders: NATS is restarting');
        return js.publish(subject, payload, options);
      },
    };
    const { stream, widgets, relay } = await setUp({ js: failingAtFirst, maxBacklog: 3, retryDelayMs: 50, sweepIntervalMs: 3_600_000 });
    for (let index = 0; index < 10; index += 1) await widgets.write('tenant-a', `b${index}`, { index });
    failUntil = Date.now() + 300;

    relay.start();
    await waitFor('every outbox to be cleared', async () => (await widgets.waiting()) === 0, 10_000);
    expect((await jsm.streams.info(stream)).state.messages).toBe(10);
  });

  it('keeps many documents in flight at once, up to its limit', async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const counting: Pick<JetStreamClient, 'publish'> = {
      async publish(subject, payload, options) {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        try {
          return await js.publish(subject, payload, options);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const { stream, widgets, relay } = await setUp({ js: counting, maxInFlight: 8 });
    for (let index = 0; index < 60; index += 1) await widgets.write('tenant-a', `m${index}`, { index });

    relay.start();
    await waitFor('every outbox to be cleared', async () => (await widgets.waiting()) === 0);
    expect((await jsm.streams.info(stream)).state.messages).toBe(60);
    expect(mostInFlight).toBeGreaterThan(1);
    expect(mostInFlight).toBeLessThanOrEqual(8);
  });

  it('on stop, lets the publishes in flight finish and clears them; the rest waits for the next start', async () => {
    const { stream, widgets, relay } = await setUp({ sweepIntervalMs: 3_600_000 });
    relay.start();
    await waitFor('the first sweep to find nothing', async () => (await widgets.waiting()) === 0);
    await widgets.write('tenant-a', 's1', { color: 'red' });
    await relay.stop();
    await widgets.write('tenant-a', 's2', { color: 'red' });

    const published = (await streamEvents(stream)).map(({ event }) => event.entity_id);
    const stillWaiting = await widgets.collection.find({ [OUTBOX_FIELD]: { $exists: true } }).map((document) => document.key).toArray();
    // what went out was cleared, what did not is still in its document: nothing is lost or doubled
    expect([...published, ...stillWaiting].sort()).toEqual(['s1', 's2']);
    expect(stillWaiting).toContain('s2');
  });
});
