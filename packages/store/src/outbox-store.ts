import type { Db, Filter } from 'mongodb';
import type { CommitListener, OutboxSource, PendingEvents, PublishedEvents } from '@rm/contracts';
import type { DocumentLocks } from './document-locks.js';
import { fromStoredEvent, lockKey, OUTBOX_FIELD, type StoredEvent } from './document.js';

interface OutboxDocument {
  _id: string;
  outbox?: StoredEvent[];
}

export interface OutboxStoreOptions {
  /** The collections whose documents carry an outbox: every one the store created. */
  collections(): readonly string[];
  /** Shared with the writes of the same store (see DocumentLocks). */
  locks: DocumentLocks;
}

export interface OutboxStore extends OutboxSource {
  /** Tells the listeners (the relay) about a committed write's waiting events. */
  notify(committed: PendingEvents): void;
}

/**
 * Documents cleared at once, each by its own statements found by `_id` alone: FerretDB serves
 * `_id: {$in: …}` by reading the whole collection (0.2 ms a document: 4,000 documents took 820 ms to
 * clear 40, and clears of 500 over 20,000 timed out), where one document by `_id` takes 5 ms.
 */
const CLEAR_IN_FLIGHT = 16;
/** Documents read per round trip by the sweep. */
const SWEEP_BATCH = 500;

/** The outbox side of the store: what the relay reads, is handed and clears, in the documents' own collections. */
export function createOutboxStore(db: Db, { collections, locks }: OutboxStoreOptions): OutboxStore {
  const listeners = new Set<CommitListener>();
  const collectionOf = (name: string) => db.collection<OutboxDocument>(name);
  // `outbox.id` rather than `outbox`, so that the sparse outbox_pending index serves the query.
  const waiting = { [`${OUTBOX_FIELD}.id`]: { $exists: true } } as Filter<OutboxDocument>;

  async function* pending(): AsyncIterable<PendingEvents> {
    for (const name of collections()) {
      const cursor = collectionOf(name).find(waiting, { projection: { [OUTBOX_FIELD]: 1 }, batchSize: SWEEP_BATCH });
      for await (const document of cursor) {
        if (document.outbox !== undefined && document.outbox.length > 0) {
          yield { collection: name, documentId: document._id, events: document.outbox.map(fromStoredEvent) };
        }
      }
    }
  }

  async function clear(published: readonly PublishedEvents[]): Promise<void> {
    for (let start = 0; start < published.length; start += CLEAR_IN_FLIGHT) {
      const batch = published.slice(start, start + CLEAR_IN_FLIGHT);
      // Under the documents' locks: FerretDB rewrites whole documents, so a write of the same
      // document in this process could otherwise lose the event it adds.
      await locks.exclusiveAll(
        batch.map((entry) => lockKey(entry.collection, entry.documentId)),
        async () => void (await Promise.all(batch.map(clearOne))),
      );
    }
  }

  /**
   * Clears one document's published events, oldest first: the last one waiting takes the field with it
   * (so that the sweep's sparse index stays small); otherwise (a write added an event meanwhile) the head
   * goes, guarded by its id, as another relay may have cleared it already. A conditional $pull would
   * read better, but FerretDB ignores it.
   */
  async function clearOne({ collection: name, documentId, eventIds }: PublishedEvents): Promise<void> {
    const collection = collectionOf(name);
    const head = (eventId: string) => ({ _id: documentId, [`${OUTBOX_FIELD}.0.id`]: eventId }) as Filter<OutboxDocument>;
    let popped = false;
    for (const eventId of eventIds) {
      const { modifiedCount } = await collection.updateOne(
        { ...head(eventId), [OUTBOX_FIELD]: { $size: 1 } } as Filter<OutboxDocument>,
        { $unset: { [OUTBOX_FIELD]: '' } },
      );
      if (modifiedCount === 1) continue;
      await collection.updateOne(head(eventId), { $pop: { [OUTBOX_FIELD]: -1 } } as never);
      popped = true;
    }
    if (popped) {
      const emptied = { _id: documentId, [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>;
      await collection.updateOne(emptied, { $unset: { [OUTBOX_FIELD]: '' } });
    }
  }

  return {
    pending,
    clear,
    onCommit(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify(committed) {
      for (const listener of listeners) listener(committed);
    },
  };
}

/** Removes empty outboxes that relays racing over one document can leave behind (maintenance). */
export async function tidyEmptyOutboxes(db: Db, names: readonly string[], locks: DocumentLocks): Promise<number> {
  const empty = { [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>;
  let tidied = 0;
  for (const name of names) {
    const collection = db.collection<OutboxDocument>(name);
    const found = await collection.find(empty, { projection: { _id: 1 } }).toArray();
    for (const { _id } of found) {
      // the $size guard keeps an event that a write added meanwhile
      const { modifiedCount } = await locks.exclusive(lockKey(name, _id), () => collection.updateOne({ ...empty, _id }, { $unset: { [OUTBOX_FIELD]: '' } }));
      tidied += modifiedCount;
    }
  }
  return tidied;
}
