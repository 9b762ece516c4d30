import type { Db, Filter } from 'mongodb';
import { OUTBOX_FIELD, type OutboxEntry } from '@rm/contracts';
import type { DocumentLocks } from './document-locks.js';

/** A document with events waiting, as the relay sees it. */
export interface PendingDocument {
  collection: string;
  id: string;
  events: OutboxEntry[];
}

/** The outbox side of the store: what the relay reads and clears, in the documents' own collections. */
export interface OutboxStore {
  /** Documents that hold unpublished events, at most `limit` per collection. */
  pending(limit: number): Promise<PendingDocument[]>;
  /** Removes a published event; only the oldest one can go, so events leave in version order. */
  markPublished(document: PendingDocument, eventId: string): Promise<void>;
}

interface OutboxDocument {
  _id: string;
  outbox?: OutboxEntry[];
}

export function createOutboxStore(db: Db, options: { collections: string[]; locks: DocumentLocks }): OutboxStore {
  const { collections, locks } = options;

  async function pending(limit: number): Promise<PendingDocument[]> {
    const found = await Promise.all(
      collections.map(async (collection) => {
        const documents = await db
          .collection<OutboxDocument>(collection)
          .find({ [OUTBOX_FIELD]: { $exists: true } } as Filter<OutboxDocument>, { projection: { [OUTBOX_FIELD]: 1 } })
          .limit(limit)
          .toArray();
        return documents.map((document) => ({ collection, id: document._id, events: document.outbox ?? [] }));
      }),
    );
    return found.flat();
  }

  function markPublished(document: PendingDocument, eventId: string): Promise<void> {
    const collection = db.collection<OutboxDocument>(document.collection);
    // Under the document's lock: FerretDB rewrites whole documents, so a concurrent write of the
    // same document in this process could otherwise bring the event back or lose a newer one.
    return locks.exclusive(document.id, async () => {
      // $pop of the head, guarded by its id; a conditional $pull would be simpler but FerretDB ignores it.
      await collection.updateOne(
        { _id: document.id, [`${OUTBOX_FIELD}.0.id`]: eventId } as Filter<OutboxDocument>,
        { $pop: { [OUTBOX_FIELD]: -1 } } as never,
      );
      // The field exists only while events wait, which keeps the relay's query cheap.
      await collection.updateOne(
        { _id: document.id, [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>,
        { $unset: { [OUTBOX_FIELD]: '' } },
      );
    });
  }

  return { pending, markPublished };
}
