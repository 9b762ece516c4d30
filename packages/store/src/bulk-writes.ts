import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';

/**
 * Operations per bulk write. FerretDB's PostgreSQL handler never answers a bulk write of 50 or more
 * updates, and hangs on bulk writes running side by side (PRACTICES; reproduced here with 4 × 49):
 * so chunks stay well below 50 and one runs at a time per store. MongoDB sends each chunk as one batch.
 */
export const BULK_CHUNK = 40;

export interface BulkCounts {
  matched: number;
  modified: number;
  upserted: number;
}

export type BulkWrites = <T extends Document>(collection: Collection<T>, operations: AnyBulkWriteOperation<T>[]) => Promise<BulkCounts>;

/** Runs bulk writes in chunks of BULK_CHUNK, one chunk at a time across everything that shares it. */
export function createBulkWrites(): BulkWrites {
  let tail: Promise<unknown> = Promise.resolve();
  const oneAtATime = <R>(work: () => Promise<R>): Promise<R> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
  return async (collection, operations) => {
    const counts: BulkCounts = { matched: 0, modified: 0, upserted: 0 };
    for (let start = 0; start < operations.length; start += BULK_CHUNK) {
      const chunk = operations.slice(start, start + BULK_CHUNK);
      const result = await oneAtATime(() => collection.bulkWrite(chunk, { ordered: true }));
      counts.matched += result.matchedCount;
      counts.modified += result.modifiedCount;
      counts.upserted += result.upsertedCount;
    }
    return counts;
  };
}
