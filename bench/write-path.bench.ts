// Write path: what a versioned write (state + version + outbox event in one document) costs next to
// the plain MongoDB write of a similar document, on the same server and in the same run.
import type { EmployeeFields } from '@rm/contracts';
import { documentId, toJsonText, type StoredDocument } from '@rm/store';
import type { Db } from 'mongodb';
import type { Bench } from './lib/bench.ts';
import { benchStore, employeeCollection, employeeFields, employeeKey, storedEmployee } from './lib/employee-fixture.ts';
import type { MemoryProbe } from './lib/memory.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { measureSeries, warmUp, type SeriesResult } from './lib/series.ts';

/**
 * Writes per series. FerretDB's updates take time in proportion to the collection's size (see
 * README), so every concurrency level writes fresh collections of this size.
 */
const OPS = 200;
const WARM_UP_OPS = 50;
const IN_FLIGHT = [1, 16];
const TENANT = 'bench-tenant';
const TITLE = 'Write path: plain insertOne / updateOne vs versioned put() create / update';
const SCALING_OPS = 100;
const SCALING_LARGE = 2000;
const SCALING_TITLE = `Write path, server scaling: plain reads and updates by _id on ${OPS} vs ${SCALING_LARGE} documents`;

export const writePathBench: Bench = {
  name: 'write-path',
  async run({ database, probe }) {
    const db = database('bench_write');
    const warm = await openWriters(db, 'warm');
    await warmUp({ ops: WARM_UP_OPS, operation: warm.plainInsert });
    await warmUp({ ops: WARM_UP_OPS, operation: warm.versionedPut(0) });
    await warmUp({ ops: WARM_UP_OPS, operation: warm.versionedCreate });
    await warmUp({ ops: WARM_UP_OPS, operation: warm.plainUpdate });
    await warmUp({ ops: WARM_UP_OPS, operation: warm.versionedPut(1) });

    const rows: ReportRow[] = [];
    for (const concurrency of IN_FLIGHT) {
      const writers = await openWriters(db, `c${concurrency}`);
      const series = (label: string, operation: (index: number) => Promise<unknown>) =>
        measureSeries(probe, { label, ops: OPS, concurrency, operation });
      // Each create creates a document and each update changes one once: collections of OPS documents.
      const insertBaseline = await series('plain insertOne', writers.plainInsert);
      rows.push({ result: insertBaseline });
      rows.push({ result: await series('versioned put() create', writers.versionedPut(0)), baseline: insertBaseline });
      rows.push({ result: await series('create(), generated id, no read', writers.versionedCreate), baseline: insertBaseline });
      const updateBaseline = await series('plain updateOne $set', writers.plainUpdate);
      rows.push({ result: updateBaseline });
      rows.push({ result: await series('versioned put() update', writers.versionedPut(1)), baseline: updateBaseline });
    }
    printTable(TITLE, rows);
    printTable(SCALING_TITLE, await scalingRows(db, probe));
  },
};

/**
 * The same plain read and update by _id on a small and on a large collection. On MongoDB both are
 * index lookups and cost the same; where they do not (FerretDB on SQLite), every extra statement
 * and every extra byte of a versioned write is paid per document in the collection.
 */
async function scalingRows(db: Db, probe: MemoryProbe): Promise<ReportRow[]> {
  const operations = async (size: number) => {
    const collection = db.collection<StoredDocument<EmployeeFields>>(`scaling_${size}`);
    await collection.insertMany(Array.from({ length: size }, (_, index) => storedEmployee(TENANT, employeeKey('e', index), index)));
    const series = (label: string, operation: (index: number) => Promise<unknown>) =>
      measureSeries(probe, { label: `${label}, ${size} documents`, ops: SCALING_OPS, operation });
    return [
      await series('findOne of a missing _id', (index) => collection.findOne({ _id: `missing-${index}` })),
      await series('updateOne {_id} $set', (index) =>
        collection.updateOne({ _id: documentId({ tenant: TENANT, key: employeeKey('e', index) }) }, { $set: { updated_at: new Date() } }),
      ),
    ];
  };
  const small = await operations(OPS);
  const large = await operations(SCALING_LARGE);
  return small.flatMap((baseline, index) => [{ result: baseline }, { result: large[index] as SeriesResult, baseline }]);
}

/** A plain collection and a versioned one side by side, and the writes the series make to them. */
async function openWriters(db: Db, suffix: string) {
  // The baseline has the same unique (tenant, key) index: the difference is the versioning and the outbox.
  const plain = db.collection<StoredDocument<EmployeeFields>>(`plain_${suffix}`);
  await plain.createIndex({ tenant: 1, key: 1 }, { name: 'scope_key', unique: true });
  const store = benchStore(db);
  const versioned = employeeCollection(store, { name: `versioned_${suffix}`, service: 'bench' });
  const generated = employeeCollection(store, { name: `generated_${suffix}`, service: 'bench' });
  await store.declareIndexes();
  return {
    plainInsert: (index: number) => plain.insertOne(storedEmployee(TENANT, employeeKey('e', index), index)),
    plainUpdate(index: number) {
      const _id = documentId({ tenant: TENANT, key: employeeKey('e', index) });
      return plain.updateOne({ _id }, { $set: { body: toJsonText(employeeFields(index, 1)), updated_at: new Date() } });
    },
    versionedCreate: (index: number) => generated.create({ tenant: TENANT }, employeeFields(index)),
    versionedPut: (revision: number) => (index: number) =>
      versioned.put({ tenant: TENANT, key: employeeKey('e', index) }, employeeFields(index, revision)),
  };
}
