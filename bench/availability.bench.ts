// Availability creates: POST /employee/{id}/availability through the employees service (schema, rules,
// the employee's guard that keeps availabilities from overlapping, the write with its event) against
// a plain insertOne of the same documents into the same database, with 1 and 500 availabilities
// already on each employee; and the same POST with an Idempotency-Key (its record written first) against
// the POST without one.
import { randomUUID } from 'node:crypto';
import type { AvailabilityFields } from '@rm/contracts';
import type { Db } from 'mongodb';
import type { Bench, BenchContext } from './lib/bench.ts';
import { employeeFields } from './lib/employee-fixture.ts';
import { startEmployees, type StartedEmployees } from './lib/employees-app.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { measureSeries, runOperations, warmUp } from './lib/series.ts';

const BASE = '/resource-management/v1';
const TENANT = 'bench-availability';
const OPS = 200;
const WARM_UP_OPS = 20;
/** Each operation in flight writes for an employee of its own, as a bulk import of many employees does. */
const IN_FLIGHT = [1, 16];
const ALREADY_THERE = [1, 500];
const PLAIN_COLLECTION = 'plain_availabilities';
const TITLE =
  'Availability creates: POST through the employees service vs a plain insertOne of the same document, and with an Idempotency-Key';

export const availabilityBench: Bench = {
  name: 'availability',
  async run(context) {
    const app = await startEmployees('bench_availability');
    try {
      const headers = await app.bearer(TENANT);
      const plain = app.service.store.db.collection<PlainDocument>(PLAIN_COLLECTION);
      await plain.createIndex({ tenant: 1, parent: 1, key: 1 }, { unique: true });
      const rows: ReportRow[] = [];
      await warmUp({ ops: WARM_UP_OPS, operation: (index) => post(app, headers, 'warm', index) });
      for (const already of ALREADY_THERE) {
        for (const concurrency of IN_FLIGHT) {
          const prefix = `e${already}-c${concurrency}`;
          await seed(app, headers, prefix, concurrency, already);
          await seedPlain(app.service.store.db, prefix, concurrency, already);
          const label = `with ${already} already there`;
          const baseline = await measureSeries(context.probe, {
            label: `insertOne, ${label}`,
            ops: OPS,
            concurrency,
            operation: (index) => plain.insertOne(plainDocument(prefix, concurrency, already + index)),
          });
          const result = await measureSeries(context.probe, {
            label: `POST availability, ${label}`,
            ops: OPS,
            concurrency,
            operation: (index) => post(app, headers, prefix, index % concurrency, already + index),
          });
          const keyed = await measureSeries(context.probe, {
            label: `POST availability with an Idempotency-Key, ${label}`,
            ops: OPS,
            concurrency,
            operation: (index) =>
              post(app, headers, prefix, index % concurrency, already + OPS + index, { 'idempotency-key': `${prefix}-${index}` }),
          });
          rows.push({ result: baseline }, { result, baseline }, { result: keyed, baseline: result });
        }
      }
      printTable(TITLE, rows);
    } finally {
      await app.close();
    }
  },
};

/** Availability `slot` of an employee: one hour, each slot an hour after the previous, so none overlap. */
function availability(slot: number): AvailabilityFields {
  return { earliest_start: new Date(Date.UTC(2027, 0, 1) + slot * 3_600_000).toISOString().replace('.000Z', 'Z'), max_duration: 'PT1H' };
}

const employeeId = (prefix: string, worker: number) => `${prefix}-${worker}`;

async function post(
  app: StartedEmployees,
  headers: Record<string, string>,
  prefix: string,
  worker: number,
  slot = worker,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  const response = await app.service.app.inject({
    method: 'POST',
    url: `${BASE}/employee/${employeeId(prefix, worker)}/availability`,
    headers: { ...headers, ...extraHeaders },
    payload: availability(slot),
  });
  if (response.statusCode === 404) {
    await putEmployee(app, headers, employeeId(prefix, worker));
    return post(app, headers, prefix, worker, slot, extraHeaders);
  }
  if (response.statusCode !== 201) throw new Error(`POST answered ${response.statusCode}: ${response.body}`);
}

async function putEmployee(app: StartedEmployees, headers: Record<string, string>, id: string): Promise<void> {
  const response = await app.service.app.inject({ method: 'PUT', url: `${BASE}/employee/${id}`, headers, payload: employeeFields(0) });
  if (response.statusCode !== 201 && response.statusCode !== 200) throw new Error(`PUT employee answered ${response.statusCode}`);
}

/** The employees of a series with `already` availabilities each, written through the service (their guards hold them). */
async function seed(app: StartedEmployees, headers: Record<string, string>, prefix: string, employees: number, already: number): Promise<void> {
  for (let worker = 0; worker < employees; worker += 1) await putEmployee(app, headers, employeeId(prefix, worker));
  const { errors } = await runOperations({
    ops: employees * already,
    concurrency: employees,
    operation: (index) => post(app, headers, prefix, index % employees, Math.floor(index / employees)),
  });
  if (errors.size > 0) throw new Error(`seeding failed: ${[...errors.keys()].join('; ')}`);
}

type PlainDocument = ReturnType<typeof plainDocument>;

/** The document the service stores, as a plain insert would write it. */
function plainDocument(prefix: string, employees: number, index: number) {
  const parent = employeeId(prefix, index % employees);
  const key = randomUUID();
  const body = availability(index);
  return { _id: `${TENANT}/${parent}/${key}`, tenant: TENANT, parent, key, version: 1, body, created_at: new Date(), updated_at: new Date() };
}

async function seedPlain(db: Db, prefix: string, employees: number, already: number): Promise<void> {
  await db.collection<PlainDocument>(PLAIN_COLLECTION).insertMany(Array.from({ length: employees * already }, (_, index) => plainDocument(prefix, employees, index)));
}
