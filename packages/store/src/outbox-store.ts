import type { Collection, Db, Filter } from 'mongodb';
import type { CommitListener, OutboxSource, PendingEvents, PublishedEvents } from '@rm/contracts';
import type { DocumentLocks } from './document-locks.js';
import { fromStoredEvent, lockKey, OUTBOX_FIELD, OUTBOX_WAITING_FIELD, type StoredEvent } from './document.js';
import { inWaves } from './in-waves.js';

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
/** Documents whose events are cleared side by side. */
const CLEARS_IN_FLIGHT = 8;
/** Documents read per round trip by the sweep. */
const SWEEP_BATCH = 500;

/** The outbox side of the store: what the relay reads, is handed and clears, in the documents' own collections. */
export function createOutboxStore(db: Db, { collections, locks }: OutboxStoreOptions): OutboxStore {
  const listeners = new Set<CommitListener>();
  const collectionOf = (name: string) => db.collection<OutboxDocument>(name);
  // an equality, which FerretDB pushes down to an index, where `outbox: {$exists}` would read every document
  const waiting = { [OUTBOX_WAITING_FIELD]: true } as Filter<OutboxDocument>;
  const empty = { [OUTBOX_FIELD]: { $size: 0 } } as Filter<OutboxDocument>;
  const drop = { $unset: { [OUTBOX_FIELD]: '', [OUTBOX_WAITING_FIELD]: '' } } as const;

  async function* pending(): AsyncIterable<PendingEvents> {
    for (const name of collections()) {
      const collection = collectionOf(name);
      const cursor = collection.find(waiting, { projection: { [OUTBOX_FIELD]: 1 }, batchSize: SWEEP_BATCH });
      for await (const document of cursor) {
        if (document.outbox !== undefined && document.outbox.length > 0) {
          yield { collection: name, documentId: document._id, events: document.outbox.map(fromStoredEvent) };
        } else {
          // relays racing over one document can leave it empty; the $size guard keeps an event a write added meanwhile
          await locks.exclusive(lockKey(name, document._id), () => collection.updateOne({ ...empty, _id: document._id }, drop));
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
          () => inWaves(batch, CLEARS_IN_FLIGHT, (entry) => clearDocument(collectionOf(name), entry)),
        );
      }
    }
  }

  /**
   * Clears one document's published events, oldest first, each statement naming the document by `_id`
   * (so that an index serves it; `_id: {$in}` is not pushed down by FerretDB and read whole collections):
   * the last published event drops the field when it is the only one waiting (one statement, the usual
   * case); otherwise the head is popped, guarded by its id (another relay may have cleared it already; a
   * conditional $pull would read better, but FerretDB ignores it), and an outbox left empty is dropped.
   */
  async function clearDocument(collection: Collection<OutboxDocument>, { documentId, eventIds }: PublishedEvents): Promise<void> {
    for (const [index, eventId] of eventIds.entries()) {
      const head = { _id: documentId, [`${OUTBOX_FIELD}.0.id`]: eventId } as Filter<OutboxDocument>;
      if (index === eventIds.length - 1) {
        const { modifiedCount } = await collection.updateOne({ ...head, [OUTBOX_FIELD]: { $size: 1 } } as Filter<OutboxDocument>, drop);
        if (modifiedCount === 1) return;
      }
      await collection.updateOne(head, { $pop: { [OUTBOX_FIELD]: -1 } } as never);
    }
    // the fields exist only while events wait, so that the sweep's index stays small
    await collection.updateOne({ ...empty, _id: documentId }, drop);
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
