import type { Collection, Db, Document, Filter, IndexDescription } from 'mongodb';
import { createEventValidator, type AppliedVersions, type OutboxSource } from '@rm/contracts';
import { createAppliedVersions } from './applied-versions.js';
import { createBulkWrites } from './bulk-writes.js';
import { createDocumentLocks } from './document-locks.js';
import type { StoredDocument } from './document.js';
import { StoreUsageError } from './errors.js';
import { createEventBuilder } from './event-builder.js';
import { createGroupedInsert, type GroupedInsert } from './grouped-inserts.js';
import { createGuard, GUARDS_COLLECTION, NO_INVARIANT, STALE_INTENTS_INDEX, type Guard, type GuardDefinition } from './guard.js';
import { createIdempotencyKeys, IDEMPOTENCY_EXPIRY_INDEX, IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENCY_KEYS_COLLECTION } from './idempotent-creates.js';
import { declareIndexes } from './indexes.js';
import { createItemWriter } from './item-writes.js';
import { createOutboxStore } from './outbox-store.js';
import { createResourceCollection, type CollectionDefinition, type ResourceCollection } from './resource-collection.js';

export interface StoreOptions {
  /** Largest message the broker accepts; a write whose event is larger is refused (413). */
  maxEventBytes: number;
  /** Guard intents and cascades untouched this long are finished by maintenance (default 10 s). */
  staleAfterMs?: number;
  /** How long a purgeable tombstone stays after its event is out (default 10 minutes). */
  tombstoneGraceMs?: number;
}

/** What one maintenance pass did. */
export interface MaintenanceReport {
  intentsFinished: number;
  cascadesFinished: number;
  tombstonesPurged: number;
  idempotencyKeysExpired: number;
}

export interface Store {
  readonly db: Db;
  /** A collection of resources; the store's outbox knows it from now on. */
  collection<Body>(definition: CollectionDefinition<Body>): ResourceCollection<Body>;
  /**
   * A collection of the service's own that publishes nothing (a consumer's derived state): its
   * indexes are declared with the others'.
   */
  plainCollection<T extends Document>(name: string, indexes: IndexDescription[]): Collection<T>;
  /** Inserts into one of them, many documents per statement while writes come side by side (grouped-inserts.ts). */
  groupedInsert<T extends Document>(collection: Collection<T>): GroupedInsert<T>;
  /** What the relay reads, is handed and clears. */
  readonly outbox: OutboxSource;
  /** The applied-versions ledger of a durable consumer. */
  appliedVersions(durable: string): AppliedVersions;
  /** Declares the indexes of every collection; idempotent. */
  declareIndexes(): Promise<void>;
  /**
   * Finishes what a crash left half done (guard intents, cascades) and purges tombstones that are no
   * longer needed. Safe to run at any time, from any replica.
   */
  maintain(): Promise<MaintenanceReport>;
}

/**
 * The store of one service's database. It owns the document locks and the bulk-write gate that all
 * its collections share, and knows every collection it made, so that the relay can never miss one.
 */
export function createStore(db: Db, options: StoreOptions): Store {
  const { maxEventBytes, staleAfterMs = 10_000, tombstoneGraceMs = 10 * 60_000 } = options;
  const locks = createDocumentLocks();
  const bulk = createBulkWrites();
  const collections = new Map<
    string,
    { collection: ResourceCollection<unknown>; guard: Guard<unknown> | undefined; purge: boolean; byWriter: boolean }
  >();
  const plainIndexes = new Map<string, IndexDescription[]>();
  // the relay sweeps the collections whose events it publishes
  const relayed = () => [...collections].flatMap(([name, { byWriter }]) => (byWriter ? [] : [name]));
  const outbox = createOutboxStore(db, { collections: relayed, locks });
  const idempotencyKeys = createIdempotencyKeys(db);

  function collection<Body>(definition: CollectionDefinition<Body>): ResourceCollection<Body> {
    if (collections.has(definition.name)) throw new StoreUsageError(`collection ${definition.name} is defined twice`);
    // one guard per parent: a top-level collection would hold a whole tenant in one guard document
    if (definition.guard !== undefined && definition.scopedByParent !== true && definition.parent === undefined) {
      throw new StoreUsageError(`collection ${definition.name}: a guard needs sub-resources (scopedByParent)`);
    }
    const byWriter = definition.publishedBy === 'writer';
    if (byWriter && (definition.guard !== undefined || definition.parent !== undefined || definition.scopedByParent === true)) {
      throw new StoreUsageError(`collection ${definition.name}: a writer publishes only top-level collections it alone writes`);
    }
    const writer = createItemWriter(db.collection<StoredDocument<Body>>(definition.name), { bulk, notify: byWriter ? undefined : outbox.notify });
    // sub-resources with a parent commit through its guard, which orders their writes against its cascade
    const guardDefinition = definition.guard ?? (definition.parent === undefined ? undefined : (NO_INVARIANT as GuardDefinition<Body, unknown>));
    const guard =
      guardDefinition === undefined
        ? undefined
        : createGuard(db, {
            collection: definition.name,
            entity: definition.events.entity,
            parentEntity: definition.parent?.entity ?? 'parent',
            definition: guardDefinition,
            writer,
            locks,
            bulk,
          });
    // each event is checked against its entity's contract when it is written (STYLE 7)
    const validate = createEventValidator([definition.events]);
    const buildEvent = createEventBuilder({
      events: definition.events,
      represent: definition.represent,
      validate,
      maxEventBytes,
      ids: byWriter ? 'by-version' : 'random',
    });
    const created = createResourceCollection(db, definition, { locks, buildEvent, writer, guard, idempotencyKeys });
    collections.set(definition.name, {
      collection: created as ResourceCollection<unknown>,
      guard: guard as Guard<unknown> | undefined,
      purge: definition.tombstones === 'purge',
      byWriter,
    });
    return created;
  }

  function plainCollection<T extends Document>(name: string, indexes: IndexDescription[]): Collection<T> {
    if (collections.has(name) || plainIndexes.has(name)) throw new StoreUsageError(`collection ${name} is defined twice`);
    plainIndexes.set(name, indexes);
    return db.collection<T>(name);
  }

  async function purgeTombstones(cutoff: Date): Promise<number> {
    let purged = 0;
    for (const [name, { purge }] of collections) {
      if (!purge) continue;
      // Only once the delete's event is out, and after a grace period: a guard intent that a stalled
      // writer applies late must find the tombstone, not an empty place to re-create the resource in.
      const { deletedCount } = await db.collection<StoredDocument<unknown>>(name).deleteMany({
        deleted: true,
        outbox: { $exists: false },
        cascading: { $exists: false },
        updated_at: { $lt: cutoff },
      } as Filter<StoredDocument<unknown>>);
      purged += deletedCount;
    }
    return purged;
  }

  return {
    db,
    collection,
    plainCollection,
    groupedInsert: (plain) => createGroupedInsert(plain, bulk),
    outbox,
    appliedVersions: (durable) => createAppliedVersions(db, durable, bulk),
    async declareIndexes() {
      for (const [name, { collection: declared }] of collections) await declareIndexes(db.collection(name), declared.indexDescriptions);
      await declareIndexes(db.collection(GUARDS_COLLECTION), [STALE_INTENTS_INDEX]);
      await declareIndexes(db.collection(IDEMPOTENCY_KEYS_COLLECTION), [IDEMPOTENCY_EXPIRY_INDEX]);
      for (const [name, indexes] of plainIndexes) await declareIndexes(db.collection(name), indexes);
    },
    async maintain() {
      const now = Date.now();
      const stale = new Date(now - staleAfterMs);
      let intentsFinished = 0;
      let cascadesFinished = 0;
      for (const { collection: each, guard } of collections.values()) {
        intentsFinished += (await guard?.finishStale(stale)) ?? 0;
        cascadesFinished += await each.finishCascades(stale);
      }
      return {
        intentsFinished,
        cascadesFinished,
        tombstonesPurged: await purgeTombstones(new Date(now - tombstoneGraceMs)),
        idempotencyKeysExpired: await idempotencyKeys.expire(new Date(now - IDEMPOTENCY_KEY_TTL_MS)),
      };
    },
  };
}
