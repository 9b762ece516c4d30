import type { Collection, Filter } from 'mongodb';
import type { PendingEvents } from '@rm/contracts';
import type { BulkWrites } from './bulk-writes.js';
import { fromStoredEvent, OUTBOX_FIELD, OUTBOX_WAITING_FIELD, type StoredDocument, type StoredEvent } from './document.js';
import { isDuplicateKeyError } from './errors.js';
import { createGroupedInsert } from './grouped-inserts.js';
import { inWaves } from './in-waves.js';

/**
 * One document brought from the version it has (`from`, 0 when there is no document) to a whole next
 * state, with the event of that change appended to its outbox in the same single-document write (unless
 * the collection's writer publishes its events itself: then there is no outbox). A
 * write is idempotent: applied twice, the second finds the version moved on and changes nothing; so a
 * guard's intent can be finished by whoever finds it (see guard.ts).
 */
export interface ItemWrite<Body> {
  _id: string;
  from: number;
  next: Omit<StoredDocument<Body>, '_id' | typeof OUTBOX_FIELD | typeof OUTBOX_WAITING_FIELD>;
  event: StoredEvent;
}

/** Updates of applyMany side by side. */
const WRITES_IN_FLIGHT = 8;
/**
 * Documents per insert statement. FerretDB inserts up to its batch size (100) as one PostgreSQL
 * statement on one connection, so inserts need not be chunked as small as updates (BULK_CHUNK).
 */
const INSERT_CHUNK = 100;

/** Fields a next state may leave out; an update removes them from the document. */
const OPTIONAL_FIELDS = ['body', 'indexed', 'pages', 'deleted', 'cascading'] as const;

/** Hands the waiting events of a written document to the relay. */
export type NotifyCommit = (committed: PendingEvents) => void;

export interface ItemWriter<Body> {
  /** Applies one write; false when the document was no longer at `from` (another write came first). */
  applyOne(write: ItemWrite<Body>): Promise<boolean>;
  /** Applies writes: the creates many per statement (see insertMany), the updates a few side by side; returns those that took effect. */
  applyMany(writes: readonly ItemWrite<Body>[]): Promise<ItemWrite<Body>[]>;
  /**
   * Inserts documents that do not exist yet, many per statement, through the store's bulk gate (FerretDB
   * hangs, whole, on multi-document writes side by side); false when one existed already (the events of
   * those inserted before it wait for the relay's sweep).
   */
  insertMany(writes: readonly ItemWrite<Body>[]): Promise<boolean>;
}

/**
 * `notify` hands each written document's waiting events to the relay; without it the documents keep no
 * outbox, and the collection's only writer publishes the events itself (CollectionDefinition.publishedBy).
 */
export function createItemWriter<Body>(
  collection: Collection<StoredDocument<Body>>,
  { bulk, notify }: { bulk: BulkWrites; notify: NotifyCommit | undefined },
): ItemWriter<Body> {
  const outbox = notify !== undefined;
  // creates side by side (an import's lines) share their statements
  const insertOne = createGroupedInsert(collection, bulk);
  const committed = (documentId: string, events: StoredEvent[] | undefined) => {
    if (events !== undefined && events.length > 0) notify?.({ collection: collection.collectionName, documentId, events: events.map(fromStoredEvent) });
  };

  async function applyOne(write: ItemWrite<Body>): Promise<boolean> {
    if (write.from === 0) {
      if (!(await insertOne(documentOf(write, outbox)))) return false;
      committed(write._id, [write.event]);
      return true;
    }
    if (!outbox) return (await collection.updateOne(versionFilter(write), updateOf(write, outbox))).matchedCount === 1;
    const after = await collection.findOneAndUpdate(versionFilter(write), updateOf(write, outbox), { returnDocument: 'after' });
    if (after === null) return false;
    committed(write._id, after.outbox);
    return true;
  }

  async function applyMany(writes: readonly ItemWrite<Body>[]): Promise<ItemWrite<Body>[]> {
    const creates = writes.filter((write) => write.from === 0);
    // Applied again (an intent rolled forward), some creates exist: each is then tried alone, and those
    // the failed statement inserted before its duplicate count as not taking effect now (the relay's
    // sweep publishes their events).
    const inserted = creates.length > 1 && (await insertMany(creates));
    // each by its _id, a few side by side: FerretDB pushes no `_id: {$in}` down, and read the whole collection for it
    const single = inserted ? writes.filter((write) => write.from !== 0) : writes;
    const tookEffect = await inWaves(single, WRITES_IN_FLIGHT, applyOne);
    const applied = new Set([...(inserted ? creates : []), ...single.filter((_, index) => tookEffect[index])]);
    return writes.filter((write) => applied.has(write));
  }

  async function insertMany(writes: readonly ItemWrite<Body>[]): Promise<boolean> {
    if (writes.some((write) => write.from !== 0)) throw new TypeError('insertMany creates documents only');
    const documents = writes.map((write) => documentOf(write, outbox));
    try {
      await bulk(collection, documents.map((document) => ({ insertOne: { document } })), { chunk: INSERT_CHUNK });
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
    for (const write of writes) committed(write._id, [write.event]);
    return true;
  }

  return { applyOne, applyMany, insertMany };
}

/** The document a create inserts: its first state, with its event waiting in the outbox if there is one. */
function documentOf<Body>(write: ItemWrite<Body>, outbox: boolean): never {
  return { _id: write._id, ...write.next, ...(outbox ? { [OUTBOX_FIELD]: [write.event], [OUTBOX_WAITING_FIELD]: true } : {}) } as never;
}

function versionFilter<Body>(write: ItemWrite<Body>): Filter<StoredDocument<Body>> {
  return { _id: write._id, version: write.from } as Filter<StoredDocument<Body>>;
}

function updateOf<Body>({ next, event }: ItemWrite<Body>, outbox: boolean): never {
  const absent = OPTIONAL_FIELDS.filter((field) => next[field] === undefined);
  const present = Object.fromEntries(Object.entries(next).filter(([, value]) => value !== undefined));
  return {
    $set: outbox ? { ...present, [OUTBOX_WAITING_FIELD]: true } : present,
    ...(absent.length > 0 ? { $unset: Object.fromEntries(absent.map((field) => [field, ''])) } : {}),
    ...(outbox ? { $push: { [OUTBOX_FIELD]: event } } : {}),
  } as never;
}
