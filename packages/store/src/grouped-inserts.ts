import { MongoBulkWriteError, MongoServerError, type AnyBulkWriteOperation, type Collection, type Document, type OptionalUnlessRequiredId, type WriteError } from 'mongodb';
import type { BulkWrites } from './bulk-writes.js';
import { DUPLICATE_KEY, isDuplicateKeyError } from './errors.js';

/**
 * Documents per statement: FerretDB inserts up to its batch size (100) as one PostgreSQL statement,
 * where each insert alone is a statement of its own with its transaction around it.
 */
const GROUP_LIMIT = 100;

/** Inserts one document: true once it is in, false when one with its `_id` was there already. */
export type GroupedInsert<T extends Document> = (document: OptionalUnlessRequiredId<T>) => Promise<boolean>;

interface Waiting<T extends Document> {
  document: OptionalUnlessRequiredId<T>;
  resolve(inserted: boolean): void;
  reject(error: unknown): void;
}

/**
 * Inserts into `collection` as a group commit does: an insert that finds none under way goes at once,
 * alone; those handed over while a statement runs go together in the next one (unordered, through the
 * store's bulk gate), so writes side by side (an import's lines, a consumer's entities) share statements
 * and a lone write waits for nothing. Each document succeeds or fails on its own.
 */
export function createGroupedInsert<T extends Document>(collection: Collection<T>, bulk: BulkWrites): GroupedInsert<T> {
  let waiting: Waiting<T>[] = [];
  let running = false;

  async function insertGroup(group: readonly Waiting<T>[]): Promise<void> {
    if (group.length === 1) {
      const [only] = group as [Waiting<T>];
      try {
        await collection.insertOne(only.document);
        only.resolve(true);
      } catch (error) {
        if (isDuplicateKeyError(error)) only.resolve(false);
        else only.reject(error);
      }
      return;
    }
    try {
      await bulk(collection, group.map(({ document }) => ({ insertOne: { document } }) as AnyBulkWriteOperation<T>), { chunk: GROUP_LIMIT, ordered: false });
      for (const each of group) each.resolve(true);
    } catch (error) {
      const failed = writeErrorsByIndex(error);
      group.forEach((each, index) => {
        const failure = failed?.get(index);
        if (failed === undefined) each.reject(error);
        else if (failure === undefined) each.resolve(true);
        else if (failure.code === DUPLICATE_KEY) each.resolve(false);
        // its own error: the bulk error carries the first document's code and message, whichever failed
        else each.reject(new MongoServerError({ message: failure.errmsg ?? 'the insert was refused', code: failure.code, errInfo: failure.errInfo }));
      });
    }
  }

  async function run(): Promise<void> {
    running = true;
    try {
      while (waiting.length > 0) {
        const group = waiting.slice(0, GROUP_LIMIT);
        waiting = waiting.slice(GROUP_LIMIT);
        await insertGroup(group);
      }
    } finally {
      running = false;
    }
  }

  return (document) =>
    new Promise<boolean>((resolve, reject) => {
      waiting.push({ document, resolve, reject });
      if (!running) void run();
    });
}

/**
 * The error of each document an unordered bulk insert refused, by its index; undefined when the statement
 * failed as a whole (a MongoBulkWriteError with no write errors wraps what stopped it: see isOutage).
 */
function writeErrorsByIndex(error: unknown): Map<number, WriteError> | undefined {
  if (!(error instanceof MongoBulkWriteError)) return undefined;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  if (writeErrors.length === 0) return undefined;
  return new Map(writeErrors.map((writeError) => [writeError.index, writeError]));
}
