// Event path, each case next to its baseline in one run on the same servers:
// - idle latency: a write returning → a durable consumer's handler, through the outbox (put() → the
//   relay, handed the event by the write → JetStream → consumer runner), next to js.publish() of the
//   same envelope to the same kind of stream and runner;
// - back to back: the same under a stream of writes, end to end;
// - relay drain: 10,000 events waiting in their documents (as a relay that was down leaves them),
//   published and cleared by the relay, next to js.publish() of the same envelopes with as many in flight;
// - consumer runner: 10,000 events in a stream handled by the runner (ledger, order, batches), next
//   to a bare JetStream consume + ack of the same messages.
import { randomUUID } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import { createConsumerRunner, createOutboxRelay, declareConsumer, declareStream } from '@rm/bus';
import {
  createEventValidator,
  entityRefKey,
  eventSubject,
  type AppliedVersions,
  type EmployeeFields,
  type EventEnvelope,
  type OutboxEntry,
  type OutboxSource,
  type PendingEvents,
} from '@rm/contracts';
import { isOutage, toStoredEvent, type StoredDocument } from '@rm/store';
import { uniqueName } from '@rm/testkit';
import { createArrivals } from './lib/arrivals.ts';
import type { Bench, BenchContext } from './lib/bench.ts';
import { benchStore, employeeCollection, employeeEvents, employeeFields, employeeKey, storedEmployee } from './lib/employee-fixture.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { measureSeries, reportProgress, runOperations, warmUp, type SeriesResult } from './lib/series.ts';
import { msSince, nsToMs } from './lib/stats.ts';

/** Writes per latency series; FerretDB's cost per update grows with the collection (see README). */
const PACED_OPS = 150;
const STREAM_OPS = 300;
const STREAM_IN_FLIGHT = [1, 16];
const WARM_UP_OPS = 20;
/** Events of the drain and runner cases, and what the relay and the baseline keep in flight. */
const BULK_EVENTS = 10_000;
const PUBLISH_IN_FLIGHT = 256;
const TENANT = 'bench-tenant';

export const eventPathBench: Bench = {
  name: 'event-path',
  async run(context) {
    const latency: ReportRow[] = [];
    const compare = async (measure: (pipeline: Pipeline, label: string) => Promise<SeriesResult>, suffix: string) => {
      const baseline = await withPipeline(context, 'publish', (pipeline) => measure(pipeline, `js.publish() → handler, ${suffix}`));
      const outbox = await withPipeline(context, 'outbox', (pipeline) => measure(pipeline, `put() → relay → handler, ${suffix}`));
      latency.push({ result: baseline }, { result: outbox, baseline });
    };
    await compare((pipeline, label) => paced(context, pipeline, label), 'idle, one at a time');
    for (const concurrency of STREAM_IN_FLIGHT) await compare((pipeline, label) => streamed(context, pipeline, label, concurrency), 'back to back');
    printTable('Event path: write returned → consumer handler (consumer runner, batches up to 500, 16 entities at once)', latency);
    printTable(`Relay draining ${BULK_EVENTS} events waiting in ${BULK_EVENTS} documents, ${PUBLISH_IN_FLIGHT} publishes in flight`, await drainRows(context));
    printTable(`Consumer runner: ${BULK_EVENTS} events of ${BULK_EVENTS} entities in the stream`, await runnerRows(context));
  },
};

// ---------------------------------------------------------------------------------------------
// Latency: a write, then its event at the handler.

/** A writer whose every write produces one event, and the consumer that receives them. */
interface Pipeline {
  write(key: string, index: number): Promise<void>;
  /** When the handler received the event of `key` (hrtime). */
  arrival(key: string): Promise<bigint>;
}

/** Each write waits for its event before the next: the latency without queueing. */
function paced(context: BenchContext, pipeline: Pipeline, label: string): Promise<SeriesResult> {
  return measureSeries(context.probe, {
    label,
    ops: PACED_OPS,
    operation: async (index) => {
      const key = employeeKey('p', index);
      await pipeline.write(key, index);
      const returned = process.hrtime.bigint();
      // the event may reach the handler before the write has returned: that counts as no delay
      return Math.max(0, nsToMs((await pipeline.arrival(key)) - returned));
    },
  });
}

/** Writes as fast as they return; the series ends when the last event has arrived. */
async function streamed(context: BenchContext, pipeline: Pipeline, label: string, concurrency: number): Promise<SeriesResult> {
  const keys = Array.from({ length: STREAM_OPS }, (_, index) => employeeKey('s', index));
  const returned = new Map<string, bigint>();
  const { result, memory } = await context.probe.around(async () => {
    const start = process.hrtime.bigint();
    const { errors } = await runOperations({
      ops: STREAM_OPS,
      concurrency,
      operation: async (index) => {
        const key = keys[index] as string;
        await pipeline.write(key, index);
        returned.set(key, process.hrtime.bigint());
      },
    });
    const written = [...returned];
    const arrivals = await Promise.all(written.map(([key]) => pipeline.arrival(key)));
    const end = arrivals.reduce((last, at) => (at > last ? at : last), start);
    const latenciesMs = written.map(([, at], index) => Math.max(0, nsToMs((arrivals[index] as bigint) - at)));
    return { totalMs: nsToMs(end - start), latenciesMs, errors };
  });
  const series = { label, ops: STREAM_OPS, concurrency, ...result, memory };
  reportProgress(series);
  return series;
}

async function withPipeline<T>(context: BenchContext, kind: 'publish' | 'outbox', use: (pipeline: Pipeline) => Promise<T>): Promise<T> {
  const service = await ownService(context);
  const arrivals = createArrivals();
  // the consumer keeps its ledger in a database of its own, as another service would
  const durable = uniqueName('bench_consumer');
  const consumer = createConsumerRunner({
    js: context.js,
    stream: service.stream,
    durable,
    logger: context.logger,
    applied: benchStore(context.database('bench_consumer')).appliedVersions(durable),
    validate: createEventValidator([employeeEvents(service.name)]),
    isOutage,
    maxDeliver: 3,
    nakDelaysMs: [100],
    handle: async (event) => arrivals.record(event.entity_id),
  });
  await consumer.start();
  const writer = kind === 'outbox' ? await openOutboxWriter(context, service.name) : openPublishWriter(context, service.name);
  try {
    const pipeline = { write: writer.write, arrival: arrivals.wait };
    await warmUp({
      ops: WARM_UP_OPS,
      operation: async (index) => {
        const key = employeeKey('w', index);
        await pipeline.write(key, index);
        await pipeline.arrival(key);
      },
    });
    return await use(pipeline);
  } finally {
    await writer.close();
    await consumer.stop();
  }
}

interface Writer {
  write(key: string, index: number): Promise<void>;
  close(): Promise<void>;
}

/** The baseline: the event published directly, as the relay would publish it. */
function openPublishWriter(context: BenchContext, service: string): Writer {
  return {
    async write(key, index) {
      const { subject, ...envelope } = createdEvent(service, key, index);
      await context.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id });
    },
    close: async () => undefined,
  };
}

/** A store collection whose writes hand their events to a relay, as the runtime wires them. */
async function openOutboxWriter(context: BenchContext, service: string): Promise<Writer> {
  const store = benchStore(context.database('bench_outbox'));
  const employees = employeeCollection(store, { name: 'employees', service });
  await store.declareIndexes();
  const relay = createOutboxRelay({ outbox: store.outbox, js: context.js, logger: context.logger });
  relay.start();
  return {
    async write(key, index) {
      await employees.put({ tenant: TENANT, key }, employeeFields(index));
    },
    close: () => relay.stop(),
  };
}

// ---------------------------------------------------------------------------------------------
// Relay drain: events already waiting in their documents.

/**
 * Baseline: js.publish() of BULK_EVENTS envelopes, PUBLISH_IN_FLIGHT at a time. Then the relay, with
 * as many in flight, over the same number of documents with one waiting event each: first over an
 * outbox that answers at once (the relay's own work alone), then over the store on the run's
 * database, where "published" ends at the last PubAck and "cleared" when the last event has left
 * its document.
 */
async function drainRows(context: BenchContext): Promise<ReportRow[]> {
  const baselineService = await ownService(context);
  const events = Array.from({ length: BULK_EVENTS }, (_, index) => createdEvent(baselineService.name, employeeKey('d', index), index));
  const baseline = await timedBulk(context, `js.publish() of ${BULK_EVENTS} envelopes`, PUBLISH_IN_FLIGHT, async (done) => {
    await runOperations({
      ops: BULK_EVENTS,
      concurrency: PUBLISH_IN_FLIGHT,
      operation: async (index) => {
        const { subject, ...envelope } = events[index] as OutboxEntry;
        await context.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id });
        done();
      },
    });
  });

  const memoryService = await ownService(context);
  const inMemory = inMemoryOutbox(
    Array.from({ length: BULK_EVENTS }, (_, index) => {
      const key = employeeKey('d', index);
      return { collection: 'employees', documentId: `${TENANT}/${key}`, events: [createdEvent(memoryService.name, key, index)] };
    }),
  );
  const [memoryPublished] = await drainWithRelay(context, 'relay, outbox in memory', inMemory);

  const storeService = await ownService(context);
  const db = context.database('bench_drain');
  const store = benchStore(db);
  // the collection the relay drains: the store's outbox knows it once it is made
  employeeCollection(store, { name: 'employees', service: storeService.name });
  await store.declareIndexes();
  await db.collection<StoredDocument<EmployeeFields>>('employees').insertMany(
    Array.from({ length: BULK_EVENTS }, (_, index) => {
      const key = employeeKey('d', index);
      return { ...storedEmployee(TENANT, key, index), outbox: [toStoredEvent(createdEvent(storeService.name, key, index))] };
    }),
  );
  const [storePublished, storeCleared] = await drainWithRelay(context, 'relay, outbox in the database', store.outbox);
  return [{ result: baseline }, ...[memoryPublished, storePublished, storeCleared].map((result) => ({ result, baseline }))];
}

/** Starts a relay over `outbox` and times it until every event is published, and until every one is cleared. */
async function drainWithRelay(context: BenchContext, label: string, outbox: OutboxSource): Promise<[SeriesResult, SeriesResult]> {
  let onPublished = () => {};
  let onCleared = (_count: number) => {};
  const counting: Pick<JetStreamClient, 'publish'> = {
    async publish(subject, payload, options) {
      const ack = await context.js.publish(subject, payload, options);
      onPublished();
      return ack;
    },
  };
  const countingOutbox: OutboxSource = {
    ...outbox,
    async clear(published) {
      await outbox.clear(published);
      onCleared(published.reduce((sum, entry) => sum + entry.eventIds.length, 0));
    },
  };
  const relay = createOutboxRelay({ outbox: countingOutbox, js: counting, logger: context.logger, maxInFlight: PUBLISH_IN_FLIGHT });
  let publishedMs = 0;
  const cleared = await timedBulk(context, `${label}: published and cleared`, PUBLISH_IN_FLIGHT, async (done, start) => {
    let publishedCount = 0;
    let clearedCount = 0;
    const allCleared = new Promise<void>((resolve) => {
      onCleared = (count) => {
        clearedCount += count;
        if (clearedCount >= BULK_EVENTS) resolve();
      };
    });
    onPublished = () => {
      done();
      publishedCount += 1;
      if (publishedCount === BULK_EVENTS) publishedMs = msSince(start);
    };
    relay.start();
    await allCleared;
  });
  await relay.stop();
  const published = { ...cleared, label: `${label}: published`, totalMs: publishedMs, memory: undefined };
  return [published, cleared];
}

/** An outbox that holds its waiting events in memory and clears at once: what the relay costs by itself. */
function inMemoryOutbox(waiting: PendingEvents[]): OutboxSource {
  return {
    async *pending() {
      yield* waiting.splice(0);
    },
    clear: async () => undefined,
    onCommit: () => () => undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Consumer runner: a stream of events, handled.

/**
 * Baseline: a bare JetStream consume + ack of every message. Then the consumer runner (parsing,
 * contract checks, ledger, per-entity order, batches) with a handler that does nothing: first with
 * a ledger in memory (the runner's own work alone), then with its ledger in the run's database.
 */
async function runnerRows(context: BenchContext): Promise<ReportRow[]> {
  const service = await ownService(context);
  await runOperations({
    ops: BULK_EVENTS,
    concurrency: PUBLISH_IN_FLIGHT,
    operation: async (index) => {
      const { subject, ...envelope } = createdEvent(service.name, employeeKey('r', index), index);
      await context.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id });
    },
  });

  const bareDurable = uniqueName('bench_bare');
  await declareConsumer(context.jsm, service.stream, { durable: bareDurable, maxDeliver: 3 });
  const bare = await timedBulk(context, `bare consume + ack of ${BULK_EVENTS}`, 1, async (done) => {
    const consumer = await context.js.consumers.get(service.stream, bareDurable);
    const messages = await consumer.consume({ max_messages: 500 });
    let count = 0;
    for await (const msg of messages) {
      msg.ack();
      done();
      count += 1;
      if (count >= BULK_EVENTS) break;
    }
    await messages.close();
  });
  const inMemory = await handleWithRunner(context, service, 'consumer runner, ledger in memory', () => inMemoryAppliedVersions());
  const inDatabase = await handleWithRunner(context, service, 'consumer runner, ledger in the database', (durable) =>
    benchStore(context.database('bench_runner')).appliedVersions(durable),
  );
  return [{ result: bare }, { result: inMemory, baseline: bare }, { result: inDatabase, baseline: bare }];
}

/** A runner on a new durable of the service's stream, timed until its handler has seen every event. */
async function handleWithRunner(
  context: BenchContext,
  service: { name: string; stream: string },
  label: string,
  ledger: (durable: string) => AppliedVersions,
): Promise<SeriesResult> {
  const durable = uniqueName('bench_runner');
  let onHandled = () => {};
  const runner = createConsumerRunner({
    js: context.js,
    stream: service.stream,
    durable,
    logger: context.logger,
    applied: ledger(durable),
    validate: createEventValidator([employeeEvents(service.name)]),
    isOutage,
    maxDeliver: 3,
    nakDelaysMs: [100],
    handle: async () => onHandled(),
  });
  const handled = await timedBulk(context, `${label}, ${BULK_EVENTS} handled`, 1, async (done) => {
    let count = 0;
    const all = new Promise<void>((resolve) => {
      onHandled = () => {
        done();
        count += 1;
        if (count >= BULK_EVENTS) resolve();
      };
    });
    await runner.start();
    await all;
  });
  await runner.stop();
  return handled;
}

/** A ledger in memory: what the runner costs by itself. */
function inMemoryAppliedVersions(): AppliedVersions {
  const versions = new Map<string, number>();
  return {
    async read(entities) {
      const found = new Map<string, number>();
      for (const entity of entities) {
        const version = versions.get(entityRefKey(entity));
        if (version !== undefined) found.set(entityRefKey(entity), version);
      }
      return found;
    },
    async record(applied) {
      for (const entity of applied) versions.set(entityRefKey(entity), Math.max(entity.version, versions.get(entityRefKey(entity)) ?? 0));
    },
    async ping() {},
  };
}

/**
 * Times a bulk case: each call of `done` marks one event through, at its time since the start (so
 * p50 is when half were through); the total is the time until `run` resolves.
 */
async function timedBulk(
  context: BenchContext,
  label: string,
  concurrency: number,
  run: (done: () => void, start: bigint) => Promise<void>,
): Promise<SeriesResult> {
  const { result, memory } = await context.probe.around(async () => {
    const latenciesMs: number[] = [];
    const start = process.hrtime.bigint();
    await run(() => latenciesMs.push(msSince(start)), start);
    return { latenciesMs, totalMs: msSince(start) };
  });
  const series: SeriesResult = { label, ops: BULK_EVENTS, concurrency, ...result, errors: new Map(), memory };
  reportProgress(series);
  return series;
}

// ---------------------------------------------------------------------------------------------

/** A publisher of the bench's own: a service name and its stream, deleted after the run. */
async function ownService(context: BenchContext): Promise<{ name: string; stream: string }> {
  const name = uniqueName('bench').toLowerCase();
  const stream = uniqueName('BENCH_EVENTS');
  await declareStream(context.jsm, { name: stream, subjects: [`rm.${name}.>`] });
  context.ownStream(stream);
  return { name, stream };
}

/** The event put() writes when it creates employee `key`, subject included. */
function createdEvent(service: string, key: string, index: number): OutboxEntry {
  const event: EventEnvelope = {
    id: randomUUID(),
    type: 'employee.created',
    tenant: TENANT,
    entity_id: key,
    version: 1,
    occurred_at: new Date().toISOString(),
    data: { business_id: key, ...employeeFields(index), version: 1 },
  };
  return { ...event, subject: eventSubject(employeeEvents(service), TENANT, 'created') };
}
