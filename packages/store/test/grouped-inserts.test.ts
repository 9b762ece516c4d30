import { MongoBulkWriteError, MongoClient, MongoNetworkError, type CommandStartedEvent, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers, uniqueName } from '@rm/testkit';
import { createBulkWrites } from '../src/bulk-writes.js';
import { isDuplicateKeyError, isOutage } from '../src/errors.js';
import { createGroupedInsert } from '../src/grouped-inserts.js';

interface Row {
  _id: string;
  n: number;
}

let client: MongoClient;
let db: Db;
/** The documents of each insert statement the client sent, in order. */
const statements: number[] = [];

beforeAll(async () => {
  client = new MongoClient(testServers().mongoUrl, { monitorCommands: true });
  client.on('commandStarted', (event: CommandStartedEvent) => {
    if (event.commandName === 'insert') statements.push((event.command.documents as unknown[]).length);
  });
  await client.connect();
  db = client.db(uniqueName('store_grouped'));
});

afterAll(async () => {
  await db?.dropDatabase();
  await client?.close();
});

/** The statements that `work` sent. */
async function statementsOf(work: () => Promise<unknown>): Promise<number[]> {
  const before = statements.length;
  await work();
  return statements.slice(before);
}

describe('grouped inserts', () => {
  it('sends a lone insert at once, alone', async () => {
    const rows = db.collection<Row>('lone');
    const insert = createGroupedInsert(rows, createBulkWrites());
    let inserted: boolean | undefined;
    expect(await statementsOf(async () => (inserted = await insert({ _id: 'a', n: 1 })))).toEqual([1]);
    expect(inserted).toBe(true);
    expect(await rows.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
  });

  it('puts the inserts handed over while a statement runs into the next one', async () => {
    const rows = db.collection<Row>('side_by_side');
    const insert = createGroupedInsert(rows, createBulkWrites());
    let results: boolean[] = [];
    const sent = await statementsOf(async () => {
      results = await Promise.all(Array.from({ length: 30 }, (_, n) => insert({ _id: `r${n}`, n })));
    });
    expect(results).toEqual(Array.from({ length: 30 }, () => true));
    // the first went alone, the other 29 together
    expect(sent).toEqual([1, 29]);
    expect(await rows.countDocuments({})).toBe(30);
  });

  it('answers false for a document whose _id is taken, and inserts the rest of its statement', async () => {
    const rows = db.collection<Row>('taken');
    await rows.insertOne({ _id: 'b', n: 0 });
    const insert = createGroupedInsert(rows, createBulkWrites());
    const results = await Promise.all(['a', 'b', 'c', 'b', 'd'].map((_id, n) => insert({ _id, n: n + 1 })));
    expect(results).toEqual([true, false, true, false, true]);
    expect(await rows.find({}, { sort: { _id: 1 } }).toArray()).toEqual([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 0 },
      { _id: 'c', n: 3 },
      { _id: 'd', n: 5 },
    ]);
  });

  it('rejects a document refused for another reason with its own error, not the first failure of its statement', async () => {
    const rows = db.collection<Row>('refused');
    await rows.insertOne({ _id: 'b', n: 0 });
    const insert = createGroupedInsert(rows, createBulkWrites());
    const first = insert({ _id: 'a', n: 1 });
    // an array is no _id: refused by the server, after a duplicate in the same statement
    const grouped = [insert({ _id: 'b', n: 2 }), insert({ _id: ['x'] as never, n: 3 }), insert({ _id: 'c', n: 4 })].map((result) => result.catch((error: unknown) => error));
    expect(await first).toBe(true);
    const [taken, refused, inserted] = await Promise.all(grouped);
    expect([taken, inserted]).toEqual([false, true]);
    expect(refused).toBeInstanceOf(Error);
    expect(isDuplicateKeyError(refused)).toBe(false);
  });

  it('rejects every insert of a statement that fails whole, as an outage when the network stopped it, and goes on with the next', async () => {
    const rows = db.collection<Row>('failing');
    const insert = createGroupedInsert(rows, () => Promise.reject(new MongoBulkWriteError(new MongoNetworkError('connection reset'), {} as never)));
    const first = insert({ _id: 'a', n: 1 });
    const grouped = [insert({ _id: 'b', n: 2 }), insert({ _id: 'c', n: 3 })].map((result) => result.catch((error: unknown) => error));
    // the lone first goes by insertOne, not by the bulk gate
    expect(await first).toBe(true);
    for (const error of await Promise.all(grouped)) expect(isOutage(error)).toBe(true);
    expect(await insert({ _id: 'd', n: 4 })).toBe(true);
    expect(await rows.countDocuments({})).toBe(2);
  });
});
