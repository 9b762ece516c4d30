import { isDeepStrictEqual } from 'node:util';
import type { Collection, Db, Filter, IndexDescription } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { EntityEvents, EventAction, OutboxEntry } from '@rm/contracts';
import type { DocumentLocks } from './document-locks.js';
import {
  documentId,
  fromJsonText,
  fromStoredEvent,
  lockKey,
  OUTBOX_WAITING_FIELD,
  scopeFilter,
  toJsonText,
  toResource,
  toStoredEvent,
  withBody,
  type Resource,
  type ResourceId,
  type Scope,
  type StoredDocument,
} from './document.js';
import {
  ConcurrentWriteError,
  orUnavailable,
  PreconditionFailedError,
  ResourceNotFoundError,
  StoreUsageError,
} from './errors.js';
import type { EventBuilder } from './event-builder.js';
import type { Guard, GuardDefinition, GuardView } from './guard.js';
import type { IdempotencyKeys, IdempotentCreated } from './idempotent-creates.js';
import { inWaves } from './in-waves.js';
import type { ItemWrite, ItemWriter } from './item-writes.js';
import { BUCKET_LEVELS, bucketField, bucketsOf, listPosition, readByBuckets, type PositionRead } from './list-buckets.js';

/** Parsed If-Match: any existing version, or one of the listed ones. */
export type IfMatch = { any: true } | { versions: readonly number[] };

/**
 * One keyset read of a page (as service-kit's `paginate` asks for it): list positions (listPosition)
 * after, from or before the bound, in position order or, when `descending`, the reverse.
 */
export interface KeysetRead extends PositionRead {
  /** Only the resources whose indexed fields match (a filtered list). */
  where?: IndexedFilter;
}

/** A filter over the fields `indexed` gives, by their path inside it: `{ 'span.end': { $gt: from } }`. */
export type IndexedFilter = Record<string, unknown>;

/** What a collection stores and publishes. */
export interface CollectionDefinition<Body> {
  /** MongoDB collection. */
  name: string;
  /** Publisher, entity and the contract of its events' data. */
  events: EntityEvents;
  /** The event data of a resource: its representation, which names its parent. */
  represent(resource: Resource<Body>): Record<string, unknown>;
  /** Sub-resources: every id has a `parent`, and lists are per parent. */
  scopedByParent?: boolean;
  /**
   * The collection of the sub-resources' parents (implies scopedByParent). Every create and put checks,
   * inside its guarded decision, that the parent is there (404 naming it otherwise); a parent's delete
   * removes them through the same guard and seals it (see removeChildrenOf), so that no write decided
   * while the parent was there lands after the cascade, and no sub-resource outlives its parent.
   */
  parent?: { collection: string; entity: string };
  /** Fields kept beside the body for queries and indexes, in query-ready form (dates as Date). */
  indexed?(body: Body): Record<string, unknown>;
  /** Indexes over `indexed` fields by name; each is prefixed with the list's scope (tenant, parent). */
  indexes?: Record<string, readonly string[]>;
  /**
   * 'purge' removes a tombstone once its event is out and a grace period has passed; only for
   * collections whose ids never come back (generated ids, no upsert), since the tombstone is what
   * keeps a re-created resource's versions going. Default 'keep'.
   */
  tombstones?: 'keep' | 'purge';
  /** An invariant over the items of one parent, committed through the parent's guard document. */
  guard?: GuardDefinition<Body, unknown>;
  /** Collections of sub-resources removed with each resource of this one (their `parent` is this collection). */
  cascadeTo?: readonly CascadeTarget[];
  /**
   * Who publishes the events. 'relay' (default): each write's event waits in its document's outbox for
   * the store's relay. 'writer': for a collection with one writer that knows what it stored (the matching
   * engine), written through writeKnown only: documents keep no outbox, writeKnown hands the events
   * back for the writer to publish, and eventsSince builds them again, under the same ids, for a writer
   * that stopped before it had published them (tombstones keep their last body for that).
   */
  publishedBy?: 'relay' | 'writer';
}

/** What a cascade needs of a collection of sub-resources. */
export interface CascadeTarget {
  removeChildrenOf(parent: ResourceId): Promise<unknown>;
}

export interface WriteResult<Body> {
  resource: Resource<Body>;
  created: boolean;
}

/** What a collection's only writer last stored of one resource: the live resource, a tombstone's version, or nothing. */
export type KnownState<Body> = Resource<Body> | { key: string; tombstone: number };

/** What writeKnown leaves: the new known states, and the events for the writer to publish (publishedBy 'writer'; none otherwise). */
export interface KnownWritten<Body> {
  states: KnownState<Body>[];
  toPublish: OutboxEntry[];
}

/** One resource brought from its known state to `body` (undefined: removed). */
export interface KnownWrite<Body> {
  key: string;
  stored: KnownState<Body> | undefined;
  body: Body | undefined;
}

export interface ResourceCollection<Body> {
  readonly name: string;
  readonly collection: Collection<StoredDocument<Body>>;
  get(id: ResourceId): Promise<Resource<Body> | null>;
  /** One page of a list, in list position order (see KeysetRead and list-buckets.ts). */
  list(scope: Scope, read: KeysetRead): Promise<Resource<Body>[]>;
  /** The live resources of a list whose indexed fields match, in key order. */
  find(scope: Scope, where?: IndexedFilter): Promise<Resource<Body>[]>;
  /**
   * The same, read a batch at a time as the caller takes them: for an answer too large to hold at once
   * (the unpaged lists, up to 50,000 items). Stopping early closes the cursor.
   */
  findEach(scope: Scope, where?: IndexedFilter): AsyncIterable<Resource<Body>>;
  /** How many resources the scope holds (a tenant's, or a parent's): a read of them all, for quotas now and then. */
  count(scope: Scope): Promise<number>;
  /**
   * Creates a resource under a fresh UUIDv7 key, without reading first: a generated one, or one from
   * newKey() for a caller that must name the resource before it exists.
   */
  create(scope: Scope, body: Body, key?: string): Promise<Resource<Body>>;
  /**
   * Creates sub-resources of a guarded collection as `create` does, under the keys given, in one commit
   * of their parent's guard: all or none (a conflict with the parent's items or among themselves refuses
   * them all), each with its own event; the documents are inserted many per statement. At most CREATE_BATCH.
   */
  createMany(scope: Scope, created: readonly { key: string; body: Body }[]): Promise<Resource<Body>[]>;
  /**
   * Creates as `create` (default: create()) does under the key it is given, at most once per idempotency
   * key of the list while the key is remembered (IdempotencyKeys.createOnce): the same key and body again
   * return what the first use created (`replayed`), another body is a 422. Without a key it just creates.
   */
  createOnce(
    scope: Scope,
    body: Body,
    options: { idempotencyKey: string | undefined; create?: (key: string) => Promise<Resource<Body>> },
  ): Promise<IdempotentCreated<Body>>;
  /**
   * Creates or replaces (`upsert`, the default), or replaces only (`update`: 404 when missing). An
   * unchanged body writes nothing and keeps the version.
   */
  put(id: ResourceId, body: Body, options?: { ifMatch?: IfMatch; mode?: 'upsert' | 'update' }): Promise<WriteResult<Body>>;
  /** Removes one resource, leaving a tombstone; returns it as it was. */
  remove(id: ResourceId, options?: { ifMatch?: IfMatch }): Promise<Resource<Body>>;
  /**
   * For a collection's only writer, which knows what it stored (the matching engine): brings each
   * resource from its known state to its body, with its event, without reading first; new documents are
   * inserted many per statement. Throws ConcurrentWriteError when a known state is not the stored one any
   * more (the others are written). Returns the new known states, and the events to publish.
   */
  writeKnown(scope: Scope, writes: readonly KnownWrite<Body>[]): Promise<KnownWritten<Body>>;
  /** What is stored of a list, tombstones included: where an only writer starts from (see writeKnown). */
  knownStates(scope: Scope): Promise<KnownState<Body>[]>;
  /**
   * The latest event of each resource of a list written at or after `since`, built again from its
   * document (publishedBy 'writer'): what a writer republishes that may not have been published.
   */
  eventsSince(scope: Scope, since: Date): Promise<OutboxEntry[]>;
  /** Removes every live resource of a list (that matches `where`), each with its own event; returns them. */
  removeMany(scope: Scope, where?: IndexedFilter): Promise<Resource<Body>[]>;
  /**
   * Removes every sub-resource of a removed parent, each with its own event, unless the parent is
   * there again (whose re-creation finished this itself); the last commit seals the parent's guard.
   */
  removeChildrenOf(parent: ResourceId): Promise<void>;
  /** Indexes of this collection, declared at start. */
  readonly indexDescriptions: IndexDescription[];
  /** Finishes cascades that a crash left half done (maintenance); returns how many. */
  finishCascades(cutoff: Date): Promise<number>;
}

export interface CollectionParts<Body> {
  locks: DocumentLocks;
  buildEvent: EventBuilder<Body>;
  writer: ItemWriter<Body>;
  guard: Guard<Body> | undefined;
  idempotencyKeys: IdempotencyKeys;
}

/** The key of a resource yet to be created: a UUIDv7, which no existing resource has. */
export function newKey(): string {
  return uuidv7();
}

/** Attempts before a write that keeps losing races answers 409. */
const MAX_WRITE_ATTEMPTS = 8;
/** Documents removed per commit by removeMany: a guard's intent holds them all. */
const REMOVE_BATCH = 200;
/** Resources createMany creates in one commit, at most: a guard keeps their writes as one intent in one document. */
export const CREATE_BATCH = REMOVE_BATCH;
/** Updates of writeKnown in flight at once. */
const KNOWN_WRITES_IN_FLIGHT = 16;
/** Bytes of writes one commit of removeMany or createMany carries at most, well below MongoDB's 16 MiB per document. */
const MAX_INTENT_BYTES = 8 * 1024 ** 2;
/** Lists whose size this process remembers, for the next read of a page of them (see readByBuckets). */
const REMEMBERED_LIST_SIZES = 1_000;
/** What a read assumes of a tenant's list it knows nothing of yet; a parent's lists are assumed small. */
const UNKNOWN_TENANT_LIST_SIZE = 10_000;
/** Documents findEach reads per round trip: about half a megabyte of availabilities. */
const FIND_EACH_BATCH = 500;

export function createResourceCollection<Body>(
  db: Db,
  definition: CollectionDefinition<Body>,
  { locks, buildEvent, writer, guard, idempotencyKeys }: CollectionParts<Body>,
): ResourceCollection<Body> {
  const { name, events, indexed, parent, tombstones = 'keep', cascadeTo = [], publishedBy = 'relay' } = definition;
  const scopedByParent = parent !== undefined || definition.scopedByParent === true;
  const entity = events.entity;
  const collection = db.collection<StoredDocument<Body>>(name);
  const live = { deleted: { $exists: false } };

  function checkScope(scope: Scope): void {
    if (scopedByParent !== (scope.parent !== undefined)) {
      throw new StoreUsageError(`${name}: ${scopedByParent ? 'a parent is required' : 'there is no parent'} in ${JSON.stringify(scope)}`);
    }
  }

  /**
   * Commits the writes `decide` makes from what it reads, holding the documents' locks: through the
   * guard when there is one (its commit is final: the writes are applied, by this writer or by
   * whoever finds its intent first), else directly. Returns the writes that took effect.
   */
  async function commit(
    scope: Scope,
    ids: readonly string[],
    decide: (guard: GuardView) => Promise<ItemWrite<Body>[]>,
    options: { seal?: boolean } = {},
  ): Promise<ItemWrite<Body>[]> {
    // its events would have no one to publish them
    if (publishedBy === 'writer') throw new StoreUsageError(`${name}: its writer writes through writeKnown only`);
    if (guard !== undefined) return guard.commit(scope, decide, options);
    return locks.exclusiveAll(ids.map((id) => lockKey(name, id)), async () => {
      const writes = await decide({ parentMayBeGone: true, holds: () => false });
      if (writes.length <= 1) return writes[0] !== undefined && (await writer.applyOne(writes[0])) ? writes : [];
      return writer.applyMany(writes);
    });
  }

  function liveWrite(id: ResourceId, current: StoredDocument<Body> | null, body: Body, at: Date): ItemWrite<Body> {
    const created = current === null || current.deleted === true;
    const version = (current?.version ?? 0) + 1;
    const createdAt = created ? at : current.created_at;
    const resource: Resource<Body> = { ...id, version, body, createdAt, updatedAt: at };
    return {
      _id: documentId(id),
      from: current?.version ?? 0,
      next: {
        ...scopeFilter(id),
        key: id.key,
        version,
        body: toJsonText(body),
        ...(indexed === undefined ? {} : { indexed: indexed(body) }),
        pages: bucketsOf(id.key),
        created_at: createdAt,
        updated_at: at,
      },
      event: toStoredEvent(buildEvent(resource, created ? 'created' : 'updated', version, at)),
    };
  }

  function tombstoneWrite(current: StoredDocument<Body>, at: Date): ItemWrite<Body> {
    const version = current.version + 1;
    return {
      _id: current._id,
      from: current.version,
      next: {
        ...scopeFilter(current),
        key: current.key,
        version,
        deleted: true,
        ...(cascadeTo.length > 0 ? { cascading: true } : {}),
        // what eventsSince builds the deletion's event from again
        ...(publishedBy === 'writer' ? { body: current.body } : {}),
        created_at: current.created_at,
        updated_at: at,
      },
      event: toStoredEvent(buildEvent(toResource(current), 'deleted' satisfies EventAction, version, at)),
    };
  }

  /**
   * The event a document's last write raised, built again: a tombstone holds the removed state's body,
   * and a write that created (again, over a tombstone) set both dates to its own.
   */
  function lastEventOf(document: StoredDocument<Body>): OutboxEntry {
    const { version, updated_at: at } = document;
    if (document.deleted === true) return buildEvent(toResource({ ...document, version: version - 1 }), 'deleted', version, at);
    return buildEvent(toResource(document), document.created_at.getTime() === at.getTime() ? 'created' : 'updated', version, at);
  }

  function checkIfMatch(key: string, current: StoredDocument<Body> | null, ifMatch: IfMatch | undefined): void {
    if (ifMatch === undefined) return;
    if (current === null || current.deleted) throw new PreconditionFailedError(entity, key, undefined);
    if ('versions' in ifMatch && !ifMatch.versions.includes(current.version)) {
      throw new PreconditionFailedError(entity, key, current.version);
    }
  }

  const read = (_id: string) => collection.findOne({ _id } as Filter<StoredDocument<Body>>);
  const parents = parent === undefined ? undefined : db.collection<StoredDocument<unknown>>(parent.collection);

  async function parentIsLive(scope: Scope): Promise<boolean> {
    if (parents === undefined || scope.parent === undefined) return true;
    const found = await parents.findOne({ _id: documentId({ tenant: scope.tenant, key: scope.parent }) }, { projection: { deleted: 1 } });
    return found !== null && found.deleted !== true;
  }

  /**
   * Inside a guarded decision: a sub-resource is written only under a parent that is there. An unsealed
   * guard vouches for its parent: had the parent gone, its cascade would remove what this writes.
   */
  async function checkParent(scope: Scope, { parentMayBeGone }: GuardView): Promise<void> {
    if (parent === undefined || !parentMayBeGone) return;
    if (!(await parentIsLive(scope))) throw new ResourceNotFoundError(parent.entity, scope.parent ?? '');
  }

  async function create(scope: Scope, body: Body, key = newKey()): Promise<Resource<Body>> {
    checkScope(scope);
    const id = { ...scope, key };
    const write = liveWrite(id, null, body, new Date());
    // A fresh UUIDv7 cannot exist yet: no read first, and nothing to retry. A key given again (an
    // idempotent create's retry) is refused where the parent's guard knows it.
    const [applied] = await orUnavailable(() =>
      commit(scope, [write._id], async (view) => {
        await checkParent(scope, view);
        if (view.holds(key)) throw new ConcurrentWriteError(entity, key);
        return [write];
      }),
    );
    if (applied === undefined) throw new ConcurrentWriteError(entity, id.key);
    return resultOf(write, body).resource;
  }

  async function createMany(scope: Scope, created: readonly { key: string; body: Body }[]): Promise<Resource<Body>[]> {
    checkScope(scope);
    if (guard === undefined) throw new StoreUsageError(`${name}: createMany is for guarded collections`);
    if (created.length > CREATE_BATCH) throw new StoreUsageError(`${name}: createMany takes at most ${CREATE_BATCH} resources`);
    if (new Set(created.map(({ key }) => key)).size < created.length) throw new StoreUsageError(`${name}: createMany was given a key twice`);
    const at = new Date();
    const writes = created.map(({ key, body }) => liveWrite({ ...scope, key }, null, body, at));
    const intentBytes = writes.reduce((sum, write) => sum + Buffer.byteLength(JSON.stringify(write)), 0);
    if (intentBytes > MAX_INTENT_BYTES) throw new StoreUsageError(`${name}: createMany was given ${intentBytes} bytes, more than one commit holds`);
    await orUnavailable(() =>
      commit(scope, writes.map((write) => write._id), async (view) => {
        await checkParent(scope, view);
        const taken = created.find(({ key }) => view.holds(key));
        if (taken !== undefined) throw new ConcurrentWriteError(entity, taken.key);
        return writes;
      }),
    );
    return writes.map((write, index) => resultOf(write, created[index]!.body).resource);
  }

  type CreateOnceOptions = Parameters<ResourceCollection<Body>['createOnce']>[2];
  async function createOnce(scope: Scope, body: Body, options: CreateOnceOptions): Promise<IdempotentCreated<Body>> {
    const { idempotencyKey, create: createUnder = (key: string) => create(scope, body, key) } = options;
    checkScope(scope);
    if (idempotencyKey === undefined) return { resource: await createUnder(newKey()), replayed: false };
    const isDeleted = async (id: ResourceId) => (await orUnavailable(() => read(documentId(id))))?.deleted === true;
    const target = { name, entity, get, isDeleted };
    return idempotencyKeys.createOnce(target, scope, { idempotencyKey, body, newKey: newKey() }, createUnder);
  }

  async function put(id: ResourceId, body: Body, options: { ifMatch?: IfMatch; mode?: 'upsert' | 'update' } = {}): Promise<WriteResult<Body>> {
    checkScope(id);
    const { ifMatch, mode = 'upsert' } = options;
    if (mode === 'upsert' && tombstones === 'purge') throw new StoreUsageError(`${name} purges tombstones, so it cannot upsert`);
    const _id = documentId(id);
    return orUnavailable(() =>
      untilApplied(id.key, async () => {
        let unchanged: StoredDocument<Body> | undefined;
        const [applied] = await commit(id, [_id], async (view) => {
          await checkParent(id, view);
          const current = await read(_id);
          checkIfMatch(id.key, current, ifMatch);
          const missing = current === null || current.deleted === true;
          if (missing && mode === 'update') throw new ResourceNotFoundError(entity, id.key);
          if (!missing && current.body !== undefined && isDeepStrictEqual(fromJsonText(current.body), body)) {
            unchanged = current;
            return [];
          }
          // A parent created again first loses the sub-resources of its previous life; the write
          // itself then drops the `cascading` mark (we hold the document's lock already).
          if (current?.cascading === true) await removeChildren(current);
          return [liveWrite(id, current, body, new Date())];
        });
        if (unchanged !== undefined) return { resource: toResource(unchanged), created: false };
        return applied === undefined ? undefined : resultOf(applied, body);
      }),
    );
  }

  async function remove(id: ResourceId, options: { ifMatch?: IfMatch } = {}): Promise<Resource<Body>> {
    checkScope(id);
    const _id = documentId(id);
    return orUnavailable(() =>
      untilApplied(id.key, async () => {
        let removed: StoredDocument<Body> | undefined;
        const [applied] = await commit(id, [_id], async () => {
          const current = await read(_id);
          checkIfMatch(id.key, current, options.ifMatch);
          if (current === null || current.deleted) throw new ResourceNotFoundError(entity, id.key);
          removed = current;
          return [tombstoneWrite(current, new Date())];
        });
        if (applied === undefined || removed === undefined) return undefined;
        if (applied.next.cascading === true) await finishCascade({ ...removed, ...applied.next });
        return toResource(removed);
      }),
    );
  }

  /** The stored document a known state stands for: enough of it to write its next state and event. */
  function documentOf(id: ResourceId, stored: KnownState<Body>): StoredDocument<Body> {
    if ('tombstone' in stored) {
      // a write over a tombstone creates afresh: its dates are not read
      const never = new Date(0);
      const at = { created_at: never, updated_at: never };
      return { _id: documentId(id), ...scopeFilter(id), key: id.key, version: stored.tombstone, deleted: true, ...at };
    }
    return {
      _id: documentId(id),
      ...scopeFilter(id),
      key: id.key,
      version: stored.version,
      body: toJsonText(stored.body),
      created_at: stored.createdAt,
      updated_at: stored.updatedAt,
    };
  }

  async function writeKnown(scope: Scope, changes: readonly KnownWrite<Body>[]): Promise<KnownWritten<Body>> {
    checkScope(scope);
    if (guard !== undefined || parent !== undefined) {
      throw new StoreUsageError(`${name}: writeKnown is for unguarded top-level collections`);
    }
    const at = new Date();
    const planned = changes.flatMap(({ key, stored, body }) => {
      const id = { ...scope, key };
      const current = stored === undefined ? null : documentOf(id, stored);
      if (body !== undefined) return [{ write: liveWrite(id, current, body, at), body }];
      return current === null || current.deleted === true ? [] : [{ write: tombstoneWrite(current, at), body }];
    });
    const writes = planned.map(({ write }) => write);
    const applied = await orUnavailable(() =>
      locks.exclusiveAll(writes.map((write) => lockKey(name, write._id)), async () => {
        const inserted = await writer.insertMany(writes.filter((write) => write.from === 0));
        const updates = writes.filter((write) => write.from !== 0);
        const updated = await inWaves(updates, KNOWN_WRITES_IN_FLIGHT, (write) => writer.applyOne(write));
        return inserted && updated.every(Boolean);
      }),
    );
    if (!applied) throw new ConcurrentWriteError(entity, changes[0]?.key ?? '');
    return {
      states: planned.map(({ write, body }) =>
        body === undefined ? { key: write.next.key, tombstone: write.next.version } : resultOf(write, body).resource,
      ),
      toPublish: publishedBy === 'writer' ? writes.map((write) => fromStoredEvent(write.event)) : [],
    };
  }

  /** Runs a read-decide-write until it is applied (undefined: another writer came first), at most MAX_WRITE_ATTEMPTS times. */
  async function untilApplied<T>(key: string, attempt: () => Promise<T | undefined>): Promise<T> {
    for (let attempts = 0; attempts < MAX_WRITE_ATTEMPTS; attempts += 1) {
      const outcome = await attempt();
      if (outcome !== undefined) return outcome;
    }
    throw new ConcurrentWriteError(entity, key);
  }

  /** Tombstone writes of the documents, as many as one commit carries (a guard keeps them as one intent in one document). */
  function tombstoneBatch(documents: readonly StoredDocument<Body>[], at: Date): ItemWrite<Body>[] {
    const writes: ItemWrite<Body>[] = [];
    let eventBytes = 0;
    for (const document of documents) {
      const write = tombstoneWrite(document, at);
      eventBytes += Buffer.byteLength(JSON.stringify(write.event));
      if (writes.length > 0 && eventBytes > MAX_INTENT_BYTES) break;
      writes.push(write);
    }
    return writes;
  }

  async function removeMany(scope: Scope, where: IndexedFilter = {}): Promise<Resource<Body>[]> {
    checkScope(scope);
    const removed: Resource<Body>[] = [];
    const filter = { ...scopeFilter(scope), ...live, ...indexedFilter(where) } as Filter<StoredDocument<Body>>;
    await orUnavailable(async () => {
      // Each round removes what is live now; a document that a concurrent write changed comes back
      // in the next round with its new version. Only rounds that remove nothing count as lost races.
      for (let lostRounds = 0; lostRounds < MAX_WRITE_ATTEMPTS; ) {
        const targets = await collection.find(filter, { projection: { _id: 1 } }).limit(REMOVE_BATCH).toArray();
        if (targets.length === 0) return;
        const ids = targets.map((target) => target._id);
        const before = new Map<string, StoredDocument<Body>>();
        const applied = await commit(scope, ids, async () => {
          const current = await collection.find({ ...filter, _id: { $in: ids } } as Filter<StoredDocument<Body>>).toArray();
          for (const document of current) before.set(document._id, document);
          // what does not fit waits for the next round
          return tombstoneBatch(current, new Date());
        });
        for (const write of applied) {
          const document = before.get(write._id) as StoredDocument<Body>;
          if (write.next.cascading === true) await finishCascade({ ...document, ...write.next });
          removed.push(toResource(document));
        }
        lostRounds = applied.length === 0 ? lostRounds + 1 : 0;
      }
      throw new ConcurrentWriteError(entity, scope.parent ?? scope.tenant);
    });
    return removed;
  }

  async function removeChildrenOf(removedParent: ResourceId): Promise<void> {
    const scope = { tenant: removedParent.tenant, parent: removedParent.key };
    if (parent === undefined) throw new StoreUsageError(`${name} names no parent collection, so it cannot be cascaded to`);
    const children = { ...scopeFilter(scope), ...live } as Filter<StoredDocument<Body>>;
    await orUnavailable(async () => {
      for (let removing = true; removing; ) {
        removing = false;
        // Decided under the guard on the parent as it is now; every round seals the guard.
        const applied = await commit(
          scope,
          [],
          async () => {
            if (await parentIsLive(scope)) return [];
            const writes = tombstoneBatch(await collection.find(children).limit(REMOVE_BATCH).toArray(), new Date());
            removing = writes.length > 0;
            return writes;
          },
          { seal: true },
        );
        for (const write of applied) if (write.next.cascading === true) await finishCascade({ _id: write._id, ...write.next });
      }
    });
  }

  /** Removes the sub-resources a removed resource had (a cascade that runs late stops once it came back). */
  async function removeChildren(tombstone: StoredDocument<Body>): Promise<void> {
    for (const child of cascadeTo) await child.removeChildrenOf({ tenant: tombstone.tenant, key: tombstone.key });
  }

  /** Removes the sub-resources of a removed resource, then clears its `cascading` mark. */
  async function finishCascade(tombstone: StoredDocument<Body>): Promise<void> {
    await removeChildren(tombstone);
    await locks.exclusive(lockKey(name, tombstone._id), () =>
      collection.updateOne(
        { _id: tombstone._id, version: tombstone.version, cascading: true } as Filter<StoredDocument<Body>>,
        { $unset: { cascading: '' } },
      ),
    );
  }

  async function finishCascades(cutoff: Date): Promise<number> {
    if (cascadeTo.length === 0) return 0;
    const pending = await collection.find({ cascading: true, updated_at: { $lt: cutoff } } as Filter<StoredDocument<Body>>).toArray();
    for (const tombstone of pending) await finishCascade(tombstone);
    return pending.length;
  }

  /** What a live write of `body` leaves, from the body itself rather than its stored text. */
  function resultOf(write: ItemWrite<Body>, body: Body): WriteResult<Body> {
    const { next } = write;
    return {
      resource: withBody({ _id: write._id, ...next }, body),
      created: write.event.type.endsWith('.created'),
    };
  }

  async function get(id: ResourceId): Promise<Resource<Body> | null> {
    checkScope(id);
    const document = await orUnavailable(() => read(documentId(id)));
    return document === null || document.deleted ? null : toResource(document);
  }

  const listSizes = new Map<string, number>();

  async function list(scope: Scope, { where = {}, ...read }: KeysetRead): Promise<Resource<Body>[]> {
    checkScope(scope);
    const filter = { ...scopeFilter(scope), ...live, ...indexedFilter(where) };
    const listKey = JSON.stringify([scope.tenant, scope.parent, where]);
    const remembered = listSizes.get(listKey) ?? (scope.parent === undefined ? UNKNOWN_TENANT_LIST_SIZE : 0);
    const { items, size } = await orUnavailable(() =>
      readByBuckets<StoredDocument<Body>>(read, remembered, (document) => listPosition(document.key), (level, bucket) =>
        collection.find((level === 0 ? filter : { ...filter, [bucketField(level)]: bucket }) as Filter<StoredDocument<Body>>).toArray(),
      ),
    );
    listSizes.delete(listKey);
    listSizes.set(listKey, size);
    if (listSizes.size > REMEMBERED_LIST_SIZES) listSizes.delete(listSizes.keys().next().value as string);
    return items.map(toResource);
  }

  function liveMatching(scope: Scope, where: IndexedFilter) {
    checkScope(scope);
    return collection.find({ ...scopeFilter(scope), ...live, ...indexedFilter(where) } as Filter<StoredDocument<Body>>).sort({ key: 1 });
  }

  async function find(scope: Scope, where: IndexedFilter = {}): Promise<Resource<Body>[]> {
    const found = await orUnavailable(() => liveMatching(scope, where).toArray());
    return found.map(toResource);
  }

  async function* findEach(scope: Scope, where: IndexedFilter = {}): AsyncGenerator<Resource<Body>> {
    const cursor = liveMatching(scope, where).batchSize(FIND_EACH_BATCH);
    try {
      for (let document = await orUnavailable(() => cursor.next()); document !== null; document = await orUnavailable(() => cursor.next())) {
        yield toResource(document);
      }
    } finally {
      await cursor.close();
    }
  }

  async function count(scope: Scope): Promise<number> {
    // a tenant's sub-resources are counted across their parents too
    if (!scopedByParent && scope.parent !== undefined) checkScope(scope);
    return orUnavailable(() => collection.countDocuments({ ...scopeFilter(scope), ...live } as Filter<StoredDocument<Body>>));
  }

  async function knownStates(scope: Scope): Promise<KnownState<Body>[]> {
    checkScope(scope);
    const found = await orUnavailable(() => collection.find(scopeFilter(scope) as Filter<StoredDocument<Body>>).sort({ key: 1 }).toArray());
    return found.map((document) => (document.deleted === true ? { key: document.key, tombstone: document.version } : toResource(document)));
  }

  async function eventsSince(scope: Scope, since: Date): Promise<OutboxEntry[]> {
    checkScope(scope);
    if (publishedBy !== 'writer') throw new StoreUsageError(`${name}: its events are the relay's to publish`);
    const found = await orUnavailable(() =>
      collection.find({ ...scopeFilter(scope), updated_at: { $gte: since } } as Filter<StoredDocument<Body>>).sort({ key: 1 }).toArray(),
    );
    return found.map(lastEventOf);
  }

  const scopeKeys = { tenant: 1, ...(scopedByParent ? { parent: 1 } : {}) };
  const indexDescriptions: IndexDescription[] = [
    { key: { ...scopeKeys, key: 1 }, name: 'scope_key', unique: true },
    // Lets the relay's sweep find documents with unpublished events without a collection scan.
    ...(publishedBy === 'relay' ? [{ key: { [OUTBOX_WAITING_FIELD]: 1 }, name: 'outbox_waiting', sparse: true }] : []),
    ...(tombstones === 'purge' ? [{ key: { deleted: 1, updated_at: 1 }, name: 'tombstones', sparse: true }] : []),
    ...(cascadeTo.length > 0 ? [{ key: { cascading: 1 }, name: 'cascading', sparse: true }] : []),
    // the buckets that lists are read by (list-buckets.ts)
    ...BUCKET_LEVELS.flatMap((level) => (level === 0 ? [] : [{ key: { ...scopeKeys, [bucketField(level)]: 1 }, name: `page_l${level}` }])),
    ...Object.entries(definition.indexes ?? {}).map(([indexName, fields]) => ({
      key: { ...scopeKeys, ...Object.fromEntries(fields.map((field) => [`indexed.${field}`, 1])) },
      name: indexName,
    })),
  ];

  return {
    name,
    collection,
    get,
    list,
    find,
    findEach,
    count,
    create,
    createMany,
    createOnce,
    put,
    remove,
    writeKnown,
    knownStates,
    eventsSince,
    removeMany,
    removeChildrenOf,
    indexDescriptions,
    finishCascades,
  };
}

function indexedFilter(where: IndexedFilter): Record<string, unknown> {
  return Object.fromEntries(Object.entries(where).map(([path, condition]) => [`indexed.${path}`, condition]));
}

/**
 * The `where` of resources whose span `[start, end)` overlaps `[from, until)` (DESIGN §3: half-open,
 * so spans that only touch do not overlap); either bound may be open.
 */
export function overlapping(start: string, end: string, { from, until }: { from?: Date; until?: Date }): IndexedFilter {
  return {
    ...(from === undefined ? {} : { [end]: { $gt: from } }),
    ...(until === undefined ? {} : { [start]: { $lt: until } }),
  };
}
