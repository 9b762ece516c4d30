import type { Db, Filter } from 'mongodb';
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

  return {
    async recover() {
      // Relays racing over one document can leave `outbox: []` behind, which the sweep's index
      // does not see; harmless, but the field should exist only while events wait.
      const empty = { [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>;
      for (const name of collections) {
        const collection = collectionOf(name);
        const emptied = await collection.find(empty, { projection: { _id: 1 } }).toArray();
        for (const { _id } of emptied) {
          // the $size guard keeps an event that a write added meanwhile
          await locks.exclusive(_id, () => collection.updateOne({ ...empty, _id }, { $unset: { [OUTBOX_FIELD]: '' } }));
        }
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

    markPublished({ collection: name, documentId, events }, eventId) {
      const collection = collectionOf(name);
      const head = { _id: documentId, [`${OUTBOX_FIELD}.0.id`]: eventId };
      // Under the document's lock: FerretDB rewrites whole documents, so a concurrent write of the
      // same document in this process could otherwise lose the event it adds.
      return locks.exclusive(documentId, async () => {
        if (events.at(-1)?.id === eventId) {
          // The last event we saw: one write removes it with the field, unless a write added another.
          const { matchedCount } = await collection.updateOne(
            { ...head, [OUTBOX_FIELD]: { $size: 1 } } as Filter<OutboxDocument>,
            { $unset: { [OUTBOX_FIELD]: '' } },
          );
          if (matchedCount === 1) return;
        }
        // $pop of the head, guarded by its id (another relay may have cleared it already); a
        // conditional $pull would read better, but FerretDB ignores it.
        await collection.updateOne(head as Filter<OutboxDocument>, { $pop: { [OUTBOX_FIELD]: -1 } } as never);
      });
    },
  };
}
