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

/** Documents cleared per round of statements. */
const CLEAR_BATCH = 500;
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
    const byCollection = Map.groupBy(published, (entry) => entry.collection);
    for (const [name, entries] of byCollection) {
      for (let start = 0; start < entries.length; start += CLEAR_BATCH) {
        const batch = entries.slice(start, start + CLEAR_BATCH);
        // Under the documents' locks: FerretDB rewrites whole documents, so a write of the same
        // document in this process could otherwise lose the event it adds.
        await locks.exclusiveAll(
          batch.map((entry) => lockKey(name, entry.documentId)),
          () => clearBatch(name, batch),
        );
      }
    }
  }

  /**
   * Clears each document's published events, oldest first, in a few statements for the whole batch:
   * per round, documents whose last published event is the only one waiting lose the field; the others
   * (a write added an event meanwhile, or several were published) lose their head, guarded by its id.
   * Rounds repeat for documents with several published events.
   */
  async function clearBatch(name: string, batch: readonly PublishedEvents[]): Promise<void> {
    const collection = collectionOf(name);
    let remaining = batch.map((entry) => ({ documentId: entry.documentId, eventIds: [...entry.eventIds] }));
    let popped = false;
    while (remaining.length > 0) {
      const lastOnes = remaining.filter((entry) => entry.eventIds.length === 1);
      let unset = 0;
      if (lastOnes.length > 0) {
        const result = await collection.updateMany(
          {
            _id: { $in: lastOnes.map((entry) => entry.documentId) },
            [`${OUTBOX_FIELD}.0.id`]: { $in: lastOnes.map((entry) => entry.eventIds[0]) },
            [OUTBOX_FIELD]: { $size: 1 },
          } as Filter<OutboxDocument>,
          { $unset: { [OUTBOX_FIELD]: '' } },
        );
        unset = result.modifiedCount;
      }
      if (unset < remaining.length) {
        // $pop of heads guarded by their ids (another relay may have cleared them already); a
        // conditional $pull would read better, but FerretDB ignores it.
        await collection.updateMany(
          {
            _id: { $in: remaining.map((entry) => entry.documentId) },
            [`${OUTBOX_FIELD}.0.id`]: { $in: remaining.map((entry) => entry.eventIds[0]) },
          } as Filter<OutboxDocument>,
          { $pop: { [OUTBOX_FIELD]: -1 } } as never,
        );
        popped = true;
      }
      remaining = remaining.map((entry) => ({ ...entry, eventIds: entry.eventIds.slice(1) })).filter((entry) => entry.eventIds.length > 0);
    }
    if (popped) {
      // the field exists only while events wait, so that the sweep's sparse index stays small
      await collection.updateMany(
        { _id: { $in: batch.map((entry) => entry.documentId) }, [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>,
        { $unset: { [OUTBOX_FIELD]: '' } },
      );
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
