// Event path: how long after a write returns its event reaches a durable consumer's handler, through
// the outbox (put() → relay woken by onWrite → JetStream → consumer runner) next to a plain
// js.publish() to the same kind of stream and the same consumer runner.
import { randomUUID } from 'node:crypto';
import { createConsumerRunner, createOutboxRelay, declareStream } from '@rm/bus';
import { eventSubject, type EventEnvelope } from '@rm/contracts';
import { createDocumentLocks, createOutboxStore } from '@rm/store';
import { uniqueName } from '@rm/testkit';
import type { Db } from 'mongodb';
import type { Bench, BenchContext } from './lib/bench.ts';
import { employeeFields, employeeKey, versionedEmployees } from './lib/employee-fixture.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { measureSeries, reportProgress, runOperations, warmUp, type SeriesResult } from './lib/series.ts';
import { nsToMs } from './lib/stats.ts';

/** Writes per series; FerretDB's cost per update grows with the collection (see README). */
const PACED_OPS = 150;
const STREAM_OPS = 300;
const WARM_UP_OPS = 20;
const STREAM_IN_FLIGHT = [1, 16];
const ARRIVAL_TIMEOUT_MS = 120_000;
const TENANT = 'bench-tenant';
const OUTBOX_COLLECTION = 'employees';
const TITLE = 'Event path: write returned → consumer handler (consumer concurrency 1)';

type Kind = 'publish' | 'outbox';

const LABELS: Record<Kind, string> = {
  publish: 'js.publish() → handler',
  outbox: 'put() → outbox relay → handler',
};

export const eventPathBench: Bench = {
  name: 'event-path',
  async run(context) {
    const rows: ReportRow[] = [];
    // Each series gets its own stream, consumer and database, so that none starts behind another.
    const compare = async (measure: (pipeline: Pipeline, label: string) => Promise<SeriesResult>, suffix: string) => {
      const baseline = await withPipeline(context, 'publish', (pipeline) => measure(pipeline, `${LABELS.publish}, ${suffix}`));
      const outbox = await withPipeline(context, 'outbox', (pipeline) => measure(pipeline, `${LABELS.outbox}, ${suffix}`));
      rows.push({ result: baseline }, { result: outbox, baseline });
    };
    await compare((pipeline, label) => paced(context, pipeline, label), 'one at a time');
    for (const concurrency of STREAM_IN_FLIGHT) {
      await compare((pipeline, label) => streamed(context, pipeline, label, concurrency), 'back to back');
    }
    printTable(TITLE, rows);
  },
};

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
      // the relay may beat the write's own return: that counts as no delay
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

async function withPipeline<T>(context: BenchContext, kind: Kind, use: (pipeline: Pipeline) => Promise<T>): Promise<T> {
  const service = uniqueName('bench');
  const stream = uniqueName('BENCH_EVENTS');
  await declareStream(context.jsm, { name: stream, subjects: [`rm.${service}.>`] });
  context.ownStream(stream);
  const arrivals = createArrivals();
  // The consumer keeps its version ledger in a database of its own, as another service would.
  const consumer = createConsumerRunner({
    js: context.js,
    db: context.database('bench_consumer'),
    stream,
    durable: uniqueName('bench_consumer'),
    logger: context.logger,
    maxDeliver: 3,
    nakDelaysMs: [100],
    concurrency: 1,
    handle: async (event) => arrivals.record(event.entity_id),
  });
  await consumer.start();
  const writer =
    kind === 'outbox' ? await openOutboxWriter(context, context.database('bench_outbox'), service) : openPublishWriter(context, service);
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
  const subject = eventSubject(service, 'employee', 'created');
  return {
    async write(key, index) {
      const event: EventEnvelope = {
        id: randomUUID(),
        type: 'employee.created',
        tenant: TENANT,
        entity_id: key,
        version: 1,
        occurred_at: new Date().toISOString(),
        data: { business_id: key, ...employeeFields(index), version: 1 },
      };
      await context.js.publish(subject, JSON.stringify(event), { msgID: event.id });
    },
    close: async () => undefined,
  };
}

/** A versioned collection whose writes wake an outbox relay, as a service wires them. */
async function openOutboxWriter(context: BenchContext, db: Db, service: string): Promise<Writer> {
  const locks = createDocumentLocks();
  let wake = () => {};
  const employees = versionedEmployees(db, { name: OUTBOX_COLLECTION, service, locks, onWrite: () => wake() });
  await employees.declareIndexes();
  const relay = createOutboxRelay({
    outbox: createOutboxStore(db, { collections: [OUTBOX_COLLECTION], locks }),
    js: context.js,
    logger: context.logger,
  });
  wake = () => relay.wake();
  relay.start();
  return {
    async write(key, index) {
      await employees.put(TENANT, key, employeeFields(index));
    },
    close: () => relay.stop(),
  };
}

/** When the handler received each entity's event, and a wait for one that has not come yet. */
function createArrivals() {
  const times = new Map<string, bigint>();
  const waiting = new Map<string, () => void>();
  return {
    record(key: string): void {
      times.set(key, process.hrtime.bigint());
      waiting.get(key)?.();
    },
    async wait(key: string): Promise<bigint> {
      const known = times.get(key);
      if (known !== undefined) return known;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no event for ${key} within ${ARRIVAL_TIMEOUT_MS} ms`)), ARRIVAL_TIMEOUT_MS);
        waiting.set(key, () => {
          clearTimeout(timer);
          waiting.delete(key);
          resolve();
        });
      });
      return times.get(key) as bigint;
    },
  };
}
