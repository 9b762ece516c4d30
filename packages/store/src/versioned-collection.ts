import { isDeepStrictEqual } from 'node:util';
import type { Collection, Db, Filter } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { eventSubject, type EventAction, type OutboxEntry } from '@rm/contracts';
import {
  ConcurrentWriteError,
  PreconditionFailedError,
  ResourceNotFoundError,
  isDuplicateKeyError,
  orUnavailable,
} from './errors.js';
import { declareIndexes } from './indexes.js';
import type { DocumentLocks } from './document-locks.js';

/**
 * One stored resource. `body` holds the caller's fields apart from ours so that no caller field can
 * collide with `version`, `outbox` and the rest. A delete leaves a tombstone (`deleted`, no body) that
 * keeps the version counter, so a resource created again continues its versions and a consumer never
 * mistakes the new incarnation for an old event.
 */
export interface VersionedDocument<Body> {
  _id: string;
  tenant: string;
  key: string;
  version: number;
  body?: Body;
  deleted?: true;
  created_at: Date;
  updated_at: Date;
  outbox?: OutboxEntry[];
}

export interface Resource<Body> {
  tenant: string;
  key: string;
  version: number;
  body: Body;
  createdAt: Date;
  updatedAt: Date;
}

/** Parsed If-Match: any existing version, or one of the listed ones. */
export type IfMatch = { any: true } | { versions: readonly number[] };

/**
 * One keyset read of a page (as service-kit's `paginate` asks for it): keys `$gt` after, `$gte` from
 * or `$lt` before the bound, in key order or, when `descending`, the reverse.
 */
export interface KeysetRead {
  bound: { after: string } | { from: string } | { before: string } | undefined;
  descending: boolean;
  limit: number;
}

export interface VersionedCollectionOptions<Body> {
  /** Collection name, also the entity's name in errors. */
  name: string;
  /** Publishing service and entity: subjects are `rm.<service>.<entity>.<action>`. */
  service: string;
  entity: string;
  /** The event `data` of a create or update: the whole new state. */
  eventData(resource: Resource<Body>): Record<string, unknown>;
  /** The event `data` of a delete: the key. */
  deletedEventData(tenant: string, key: string): Record<string, unknown>;
  /** Shared with the outbox store of the same database (see DocumentLocks). */
  locks: DocumentLocks;
  /** Called after every committed write, so the outbox relay can publish at once. */
  onWrite?: () => void;
}

export interface WriteResult<Body> {
  resource: Resource<Body>;
  created: boolean;
}

export interface VersionedCollection<Body> {
  readonly collection: Collection<VersionedDocument<Body>>;
  declareIndexes(): Promise<void>;
  get(tenant: string, key: string): Promise<Resource<Body> | null>;
  list(tenant: string, read: KeysetRead): Promise<Resource<Body>[]>;
  /** Creates or replaces; an unchanged body writes nothing and keeps the version. */
  put(tenant: string, key: string, body: Body, options?: { ifMatch?: IfMatch }): Promise<WriteResult<Body>>;
  remove(tenant: string, key: string, options?: { ifMatch?: IfMatch }): Promise<Resource<Body>>;
}

/** Attempts before a write that keeps losing races answers 409. */
const MAX_WRITE_ATTEMPTS = 8;

export function documentId(tenant: string, key: string): string {
  // Keys never contain '/', so the last '/' separates tenant and key: the id is unambiguous.
  return `${tenant}/${key}`;
}

export function createVersionedCollection<Body>(
  db: Db,
  options: VersionedCollectionOptions<Body>,
): VersionedCollection<Body> {
  const { name, service, entity, eventData, deletedEventData, locks, onWrite = () => undefined } = options;
  const collection = db.collection<VersionedDocument<Body>>(name);

  function outboxEntry(tenant: string, key: string, version: number, action: EventAction, at: Date, data: Record<string, unknown>): OutboxEntry {
    return {
      id: uuidv7(),
      type: `${entity}.${action}`,
      subject: eventSubject(service, entity, action),
      tenant,
      entity_id: key,
      version,
      occurred_at: at.toISOString(),
      data,
    };
  }

  function checkIfMatch(key: string, current: VersionedDocument<Body> | null, ifMatch: IfMatch | undefined): void {
    if (ifMatch === undefined) return;
    if (current === null || current.deleted) throw new PreconditionFailedError(entity, key, undefined);
    if ('versions' in ifMatch && !ifMatch.versions.includes(current.version)) {
      throw new PreconditionFailedError(entity, key, current.version);
    }
  }

  function put(tenant: string, key: string, body: Body, options: { ifMatch?: IfMatch } = {}) {
    const _id = documentId(tenant, key);
    return orUnavailable(() => locks.exclusive(_id, () => putOnce(_id, tenant, key, body, options.ifMatch)));
  }

  /** Across processes the version filter of the update decides which writer wins (MongoDB). */
  async function putOnce(_id: string, tenant: string, key: string, body: Body, ifMatch: IfMatch | undefined) {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt += 1) {
      const current = await collection.findOne({ _id } as Filter<VersionedDocument<Body>>);
      checkIfMatch(key, current, ifMatch);
      if (current && !current.deleted && isDeepStrictEqual(current.body, body)) {
        return { resource: toResource(current), created: false };
      }
      const at = new Date();
      if (current === null) {
        const resource: Resource<Body> = { tenant, key, version: 1, body, createdAt: at, updatedAt: at };
        const document: VersionedDocument<Body> = {
          _id, tenant, key, version: 1, body, created_at: at, updated_at: at,
          outbox: [outboxEntry(tenant, key, 1, 'created', at, eventData(resource))],
        };
        try {
          await collection.insertOne(document as never);
        } catch (error) {
          if (isDuplicateKeyError(error)) continue; // created concurrently: decide again on what is there
          throw error;
        }
        onWrite();
        return { resource, created: true };
      }
      const created = current.deleted === true;
      const version = current.version + 1;
      const createdAt = created ? at : current.created_at;
      const resource: Resource<Body> = { tenant, key, version, body, createdAt, updatedAt: at };
      const event = outboxEntry(tenant, key, version, created ? 'created' : 'updated', at, eventData(resource));
      const written = await collection.findOneAndUpdate(
        { _id, version: current.version } as Filter<VersionedDocument<Body>>,
        {
          $set: { version, body, created_at: createdAt, updated_at: at },
          ...(created ? { $unset: { deleted: '' } } : {}),
          $push: { outbox: event },
        } as never,
        { returnDocument: 'after' },
      );
      if (written === null) continue; // another write won the race: decide again
      onWrite();
      return { resource, created };
    }
    throw new ConcurrentWriteError(entity, key);
  }

  function remove(tenant: string, key: string, options: { ifMatch?: IfMatch } = {}) {
    const _id = documentId(tenant, key);
    return orUnavailable(() => locks.exclusive(_id, () => removeOnce(_id, tenant, key, options.ifMatch)));
  }

  async function removeOnce(_id: string, tenant: string, key: string, ifMatch: IfMatch | undefined) {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt += 1) {
      const current = await collection.findOne({ _id } as Filter<VersionedDocument<Body>>);
      checkIfMatch(key, current, ifMatch);
      if (current === null || current.deleted) throw new ResourceNotFoundError(entity, key);
      const at = new Date();
      const version = current.version + 1;
      const event = outboxEntry(tenant, key, version, 'deleted', at, deletedEventData(tenant, key));
      const written = await collection.findOneAndUpdate(
        { _id, version: current.version } as Filter<VersionedDocument<Body>>,
        { $set: { version, deleted: true, updated_at: at }, $unset: { body: '' }, $push: { outbox: event } } as never,
      );
      if (written === null) continue;
      onWrite();
      return toResource(current);
    }
    throw new ConcurrentWriteError(entity, key);
  }

  async function get(tenant: string, key: string): Promise<Resource<Body> | null> {
    const document = await orUnavailable(() =>
      collection.findOne({ _id: documentId(tenant, key) } as Filter<VersionedDocument<Body>>),
    );
    return document === null || document.deleted ? null : toResource(document);
  }

  async function list(tenant: string, { bound, descending, limit }: KeysetRead): Promise<Resource<Body>[]> {
    const range =
      bound === undefined ? undefined
      : 'after' in bound ? { $gt: bound.after }
      : 'from' in bound ? { $gte: bound.from }
      : { $lt: bound.before };
    const found = await orUnavailable(() =>
      collection
        .find({ tenant, deleted: { $exists: false }, ...(range ? { key: range } : {}) } as Filter<VersionedDocument<Body>>)
        .sort({ key: descending ? -1 : 1 })
        .limit(limit)
        .toArray(),
    );
    return found.map(toResource);
  }

  return {
    collection,
    declareIndexes: () =>
      declareIndexes(collection, [
        { key: { tenant: 1, key: 1 }, name: 'tenant_key', unique: true },
        // Lets the outbox relay find documents with unpublished events without a collection scan.
        { key: { 'outbox.id': 1 }, name: 'outbox_pending', sparse: true },
      ]),
    get,
    list,
    put,
    remove,
  };
}

function toResource<Body>(document: VersionedDocument<Body>): Resource<Body> {
  return {
    tenant: document.tenant,
    key: document.key,
    version: document.version,
    body: document.body as Body,
    createdAt: document.created_at,
    updatedAt: document.updated_at,
  };
}
