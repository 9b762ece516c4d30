import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';

/**
 * Operations per bulk write. FerretDB v1.24 holds one of its PostgreSQL connections (50, or its URL's
 * pool_max_conns) for each document a bulk write updates until the whole bulk write ends, plus one to
 * write: a bulk write of as many updates as it has connections, or a few bulk writes side by side
 * (services share a FerretDB), took them all and then FerretDB answered nothing ever again (a bulk of 41
 * on 40 connections hung; PRACTICES saw 50). Small chunks are also faster there, since each held
 * connection is a new one: 1.5 ms an update in chunks of 8, 8.7 ms in a chunk of 39, 3.3 ms alone. So
 * chunks stay at 8, and one runs at a time per store. MongoDB sends each chunk as one batch.
 */
export const BULK_CHUNK = 8;

export interface BulkCounts {
  matched: number;
  modified: number;
  upserted: number;
}

/**
 * Runs bulk writes in chunks (of BULK_CHUNK unless `chunk` says: inserts may take more, see
 * item-writes.ts), each chunk ordered (it stops at its first failure) unless `ordered` is false; either
 * way a chunk that fails stops the chunks after it, and the indexes of its write errors are the chunk's.
 */
export type BulkWrites = <T extends Document>(
  collection: Collection<T>,
  operations: AnyBulkWriteOperation<T>[],
  options?: { chunk?: number; ordered?: boolean },
) => Promise<BulkCounts>;

/** Runs bulk writes in chunks, one chunk at a time across everything that shares it. */
export function createBulkWrites(): BulkWrites {
  let tail: Promise<unknown> = Promise.resolve();
  const oneAtATime = <R>(work: () => Promise<R>): Promise<R> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
  return async (collection, operations, { chunk: chunkSize = BULK_CHUNK, ordered = true } = {}) => {
    const counts: BulkCounts = { matched: 0, modified: 0, upserted: 0 };
    for (let start = 0; start < operations.length; start += chunkSize) {
      const chunk = operations.slice(start, start + chunkSize);
      const result = await oneAtATime(() => collection.bulkWrite(chunk, { ordered }));
      counts.matched += result.matchedCount;
      counts.modified += result.modifiedCount;
      counts.upserted += result.upsertedCount;
    }
    return counts;
  };
}
