import type { Collection, Db, Filter } from 'mongodb';
import { OUTBOX_FIELD, type OutboxEntry, type OutboxSource, type PendingEvents } from '@rm/contracts';
import type { DocumentLocks } from './document-locks.js';

interface OutboxDocument {
  _id: string;
  outbox?: OutboxEntry[];
}

export interface OutboxStoreOptions {
  /** Collections whose documents carry an embedded outbox. */
  collections: string[];
  /** Shared with the versioned collections of the same database (see DocumentLocks). */
  locks: DocumentLocks;
  /** Documents read per round trip (default 100). */
  batchSize?: number;
}

/** The outbox side of the store: what the relay reads and clears, in the documents' own collections. */
export function createOutboxStore(db: Db, options: OutboxStoreOptions): OutboxSource {
  const { collections, locks, batchSize = 100 } = options;
  const collectionOf = (name: string) => db.collection<OutboxDocument>(name);
  // `outbox.id` rather than `outbox`, so that the sparse outbox_pending index serves the query.
  const waiting = { [`${OUTBOX_FIELD}.id`]: { $exists: true } } as Filter<OutboxDocument>;

  /** Removes the field once nothing waits; the `$size: 0` guard keeps an entry pushed meanwhile. */
  async function unsetIfEmpty(collection: Collection<OutboxDocument>, id: string): Promise<void> {
    await collection.updateOne(
      { _id: id, [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>,
      { $unset: { [OUTBOX_FIELD]: '' } },
    );
  }

  return {
    async recover() {
      // A crash between the last pop and the $unset leaves `outbox: []`, which the sweep cannot see.
      for (const name of collections) {
        const collection = collectionOf(name);
        const emptied = await collection
          .find({ [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>, { projection: { _id: 1 } })
          .toArray();
        for (const { _id } of emptied) await locks.exclusive(_id, () => unsetIfEmpty(collection, _id));
      }
    },

    async *pending(): AsyncIterable<PendingEvents> {
      for (const name of collections) {
        // Every waiting document each sweep, so that documents that keep failing cannot starve others.
        const cursor = collectionOf(name).find(waiting, { projection: { [OUTBOX_FIELD]: 1 } }).batchSize(batchSize);
        for await (const document of cursor) {
          yield { collection: name, documentId: document._id, events: document.outbox ?? [] };
        }
      }
    },

    markPublished({ collection: name, documentId }, eventId) {
      const collection = collectionOf(name);
      // Under the document's lock: FerretDB rewrites whole documents, so a concurrent write of the
      // same document in this process could otherwise lose the event it adds.
      return locks.exclusive(documentId, async () => {
        // $pop of the head, guarded by its id (another relay may have popped it already); a
        // conditional $pull would read better, but FerretDB ignores it.
        await collection.updateOne(
          { _id: documentId, [`${OUTBOX_FIELD}.0.id`]: eventId } as Filter<OutboxDocument>,
          { $pop: { [OUTBOX_FIELD]: -1 } } as never,
        );
        await unsetIfEmpty(collection, documentId);
      });
    },
  };
}
