// Growth: how the cost of the write path, of a write's event reaching a durable consumer, and of a
// list page grows with the data. One employees service, as the runtime runs it, whose database grows
// from size to size (1,000 → 10,000 → 50,000 documents, or BENCH_GROWTH_SIZES) and is measured at
// each, every case next to a plain-driver baseline on a plain collection of as many documents of the
// same shape, in the same database.
import { createConsumerRunner } from '@rm/bus';
import { createEventValidator, EMPLOYEE_EVENTS, serviceStream, type EmployeeFields } from '@rm/contracts';
import { documentId, isOutage, toJsonText, type StoredDocument } from '@rm/store';
import { uniqueName } from '@rm/testkit';
import type { Collection } from 'mongodb';
import { createArrivals } from './lib/arrivals.ts';
import type { Bench, BenchContext } from './lib/bench.ts';
import { employeeFields, employeeKey, storedEmployee } from './lib/employee-fixture.ts';
import { employeePage, startEmployees, type StartedEmployees } from './lib/employees-app.ts';
import { printGrowthTable, type ReportRow } from './lib/report.ts';
import { measureInterleaved, measureSeries, warmUp, type SeriesResult } from './lib/series.ts';
import { msSince, nsToMs } from './lib/stats.ts';

const DEFAULT_SIZES = [1_000, 10_000, 50_000];
/**
 * Operations per series and size. Before issue 24's index work, at 50,000 documents on FerretDB a write
 * and its event took about a second and a list page 5–11 s, so those series are shorter (their p99 is
 * their slowest), which keeps the run comparable with that one.
 */
const WRITE_OPS = 200;
const EVENT_OPS = 30;
const PAGE_OPS = 5;
const WARM_UP_OPS = 10;
const EVENT_WARM_UP_OPS = 5;
const PAGE_SIZE = 100;
/** `next` cursors followed from the first page to the deep one. */
const DEEP_PAGE = 2;
/** The service's MongoDB timeout per statement (default 10 s), see openGrowingData. */
const STATEMENT_TIMEOUT_MS = 60_000;
/** Documents per insertMany of the preload: one store write at a time would take minutes. */
const PRELOAD_CHUNK = 1_000;
const TENANT = uniqueName('bench_growth');
const EMPLOYEES_STREAM = serviceStream(EMPLOYEE_EVENTS.service).name;

export const growthBench: Bench = {
  name: 'growth',
  async run(context) {
    const sizes = parseSizes(process.env.BENCH_GROWTH_SIZES);
    const data = await openGrowingData(context);
    const writes: ReportRow[][] = [];
    const events: ReportRow[][] = [];
    const listing: ReportRow[][] = [];
    try {
      for (const size of sizes) {
        await data.growTo(size);
        // the creates come last: every other series sees exactly `size` documents
        listing.push(await measureListing(data, size));
        events.push(await measureEvents(context, data, size));
        writes.push(await measureWrites(context, data, size));
      }
    } finally {
      await data.close();
    }
    const unit = 'p50 / p99 ms (p50 × the baseline above)';
    printGrowthTable(`Write path through the store vs the plain driver, by documents in the collection, ${unit}`, sizes, writes);
    printGrowthTable(`put() update → durable consumer handled its event, ledger holding as many entities, ${unit}`, sizes, events);
    printGrowthTable(`GET /employee?limit=${PAGE_SIZE} vs a plain find({tenant}).limit(${PAGE_SIZE}), ${unit}`, sizes, listing);
  },
};

/** Ascending, since the database only grows; each size holds the deep page. */
function parseSizes(text: string | undefined): number[] {
  if (text === undefined) return DEFAULT_SIZES;
  const sizes = text.split(',').map(Number);
  const least = PAGE_SIZE * (DEEP_PAGE + 1);
  if (sizes.some((size, index) => !Number.isInteger(size) || size < Math.max(least, (sizes[index - 1] ?? 0) + 1))) {
    throw new Error(`BENCH_GROWTH_SIZES=${text}: ascending whole numbers of at least ${least} documents are needed`);
  }
  return sizes;
}

/**
 * The employees service's own collection and a plain one beside it, both holding TENANT's employees
 * e-000000, e-000001, … in the order they were stored (creates take the next key), and a durable
 * consumer of the service's events whose ledger is in the same database.
 */
interface GrowingData {
  app: StartedEmployees;
  headers: Record<string, string>;
  plain: Collection<StoredDocument<EmployeeFields>>;
  durable: string;
  /** The index of the next employee stored in the service's collection, and in the plain one. */
  nextEmployee(): number;
  nextPlain(): number;
  /** Employee `index` with a body no employee had yet, so that every update changes something. */
  changedFields(index: number): EmployeeFields;
  /** Tops both collections and the consumer's ledger up to `size` documents and entities. */
  growTo(size: number): Promise<void>;
  close(): Promise<void>;
}

async function openGrowingData(context: BenchContext): Promise<GrowingData> {
  // Before issue 24, a list page of 50,000 took FerretDB 5–12 s, more while the machine was busy: past the
  // service's default 10 s per statement it answered 503 and the consumer waited out an outage.
  const app = await startEmployees('bench_growth', { MONGO_OPERATION_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
  const { db } = app.service.store;
  const plain = db.collection<StoredDocument<EmployeeFields>>('plain_employees');
  // the baseline has the same unique (tenant, key) index as the service's collection
  await plain.createIndex({ tenant: 1, key: 1 }, { name: 'scope_key', unique: true });
  const durable = uniqueName('bench_growth');
  const ledger = app.service.store.appliedVersions(durable);
  let employees = 0;
  let plains = 0;
  let revisions = 0;
  return {
    app,
    headers: await app.bearer(TENANT),
    plain,
    durable,
    nextEmployee: () => employees++,
    nextPlain: () => plains++,
    changedFields: (index) => employeeFields(index, ++revisions),
    async growTo(size) {
      const start = process.hrtime.bigint();
      const from = employees;
      employees = await preload(app.service.collections.employees.collection, employees, size);
      plains = await preload(plain, plains, size);
      // the ledger learns of the employees that the series created as the consumer catches up with their events
      const entities = Array.from({ length: employees - from }, (_, offset) => employeeKey('e', from + offset));
      await ledger.record(entities.map((entityId) => ({ tenant: TENANT, entity: EMPLOYEE_EVENTS.entity, entityId, version: 1 })));
      console.log(`grown to ${size.toLocaleString('en-US')} documents and ledger entities in ${(msSince(start) / 1000).toFixed(1)} s`);
    },
    async close() {
      await context.jsm.consumers.delete(EMPLOYEES_STREAM, durable).catch(() => false);
      await app.close();
    },
  };
}

/** Inserts employees e-<from> … up to `size` documents, as put() stores them once their event is out. */
async function preload(collection: Collection<StoredDocument<EmployeeFields>>, from: number, size: number): Promise<number> {
  for (let start = from; start < size; start += PRELOAD_CHUNK) {
    const indexes = Array.from({ length: Math.min(PRELOAD_CHUNK, size - start) }, (_, offset) => start + offset);
    await collection.insertMany(indexes.map((index) => storedEmployee(TENANT, employeeKey('e', index), index)));
  }
  return Math.max(from, size);
}

/** Operation `index` of `ops` touches an employee spread over the whole collection of `size`. */
function spread(index: number, ops: number, size: number): number {
  return Math.floor((index * size) / ops) % size;
}

async function measureWrites({ probe }: BenchContext, data: GrowingData, size: number): Promise<ReportRow[]> {
  const employees = data.app.service.collections.employees;
  const existing = (index: number) => ({ tenant: TENANT, key: employeeKey('e', spread(index, WRITE_OPS, size)) });
  const series = async (label: string, operation: (index: number) => Promise<unknown>) => {
    await warmUp({ ops: WARM_UP_OPS, operation });
    return measureSeries(probe, { label, ops: WRITE_OPS, operation });
  };
  const findOne = await series('plain findOne({_id})', (index) => data.plain.findOne({ _id: documentId(existing(index)) }));
  const get = await series('get() by id', (index) => employees.get(existing(index)));
  const updateOne = await series('plain updateOne({_id}) $set', (index) =>
    data.plain.updateOne({ _id: documentId(existing(index)) }, { $set: { body: toJsonText(data.changedFields(index)), updated_at: new Date() } }),
  );
  const update = await series('put() update', (index) => employees.put(existing(index), data.changedFields(index)));
  const insertOne = await series('plain insertOne', () => {
    const index = data.nextPlain();
    return data.plain.insertOne(storedEmployee(TENANT, employeeKey('e', index), index));
  });
  const putCreate = await series('put() create', () => {
    const index = data.nextEmployee();
    return employees.put({ tenant: TENANT, key: employeeKey('e', index) }, employeeFields(index));
  });
  // create() under the next key rather than a UUIDv7: the same statements, and the keys stay in sequence
  const create = await series('create(), no read', () => {
    const index = data.nextEmployee();
    return employees.create({ tenant: TENANT }, employeeFields(index), employeeKey('e', index));
  });
  return [
    { result: findOne },
    { result: get, baseline: findOne },
    { result: updateOne },
    { result: update, baseline: updateOne },
    { result: insertOne },
    { result: putCreate, baseline: insertOne },
    { result: create, baseline: insertOne },
  ];
}

/**
 * put() updates one at a time, each timed from the call until the consumer's handler has its event
 * (the service's relay publishes it, the runner reads and raises the ledger), next to the same puts
 * timed until they return. The runner runs for this series only and first catches up with the events
 * of the other series (unmeasured, in the warm-up).
 */
async function measureEvents({ js, logger, probe }: BenchContext, data: GrowingData, size: number): Promise<ReportRow[]> {
  const employees = data.app.service.collections.employees;
  const arrivals = createArrivals();
  const runner = createConsumerRunner({
    js,
    stream: EMPLOYEES_STREAM,
    durable: data.durable,
    filterSubjects: [`rm.${EMPLOYEE_EVENTS.service}.${TENANT}.${EMPLOYEE_EVENTS.entity}.*`],
    logger,
    applied: data.app.service.store.appliedVersions(data.durable),
    validate: createEventValidator([EMPLOYEE_EVENTS]),
    isOutage,
    maxDeliver: 3,
    nakDelaysMs: [100],
    handle: async (event) => arrivals.record(`${event.entity_id}@${event.version}`),
  });
  const updateUntilHandled = (ops: number, returnedMs: number[]) => async (index: number) => {
    const start = process.hrtime.bigint();
    const { resource } = await employees.put({ tenant: TENANT, key: employeeKey('e', spread(index, ops, size)) }, data.changedFields(index));
    returnedMs.push(msSince(start));
    return nsToMs((await arrivals.wait(`${resource.key}@${resource.version}`)) - start);
  };
  await runner.start();
  try {
    await warmUp({ ops: EVENT_WARM_UP_OPS, operation: updateUntilHandled(EVENT_WARM_UP_OPS, []) });
    const returnedMs: number[] = [];
    const handled = await measureSeries(probe, {
      label: 'put() update, until the consumer handled its event',
      ops: EVENT_OPS,
      operation: updateUntilHandled(EVENT_OPS, returnedMs),
    });
    const returned: SeriesResult = { ...handled, label: 'put() update, until it returned', latenciesMs: returnedMs };
    return [{ result: returned }, { result: handled, baseline: returned }];
  } finally {
    await runner.stop();
  }
}

/**
 * The first page and a page reached by following `next` (which also probes for `prev`) through the
 * service, and the plain first PAGE_SIZE documents of the tenant, page by page in turn.
 */
async function measureListing(data: GrowingData, size: number): Promise<ReportRow[]> {
  const page = async (from: string | undefined) => {
    const read = await employeePage(data.app, data.headers, PAGE_SIZE, from);
    if (read.items !== PAGE_SIZE) throw new Error(`a page of ${read.items} employees of ${size}`);
    return read;
  };
  // following the cursors warms the service's path up
  let cursor: string | undefined;
  for (let followed = 0; followed < DEEP_PAGE; followed += 1) cursor = (await page(cursor)).next;
  const plainFirst = () => data.plain.find({ tenant: TENANT }).limit(PAGE_SIZE).toArray();
  await plainFirst();
  const [baseline, first, reached] = (await measureInterleaved(PAGE_OPS, [
    { label: `plain find({tenant}).limit(${PAGE_SIZE})`, operation: plainFirst },
    { label: 'GET, first page', operation: () => page(undefined) },
    { label: `GET, page ${DEEP_PAGE + 1} by its cursor`, operation: () => page(cursor) },
  ])) as [SeriesResult, SeriesResult, SeriesResult];
  return [{ result: baseline }, { result: first, baseline }, { result: reached, baseline }];
}
