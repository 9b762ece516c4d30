import { createHash } from 'node:crypto';
import type { Db, Filter } from 'mongodb';
import { documentId, type Resource, type ResourceId, type Scope } from './document.js';
import { isDuplicateKeyError, isRefusal, orUnavailable, StoreError } from './errors.js';

/** Where the idempotency keys of every collection of a store are remembered. */
export const IDEMPOTENCY_KEYS_COLLECTION = 'idempotency_keys';

/** How long an idempotency key is remembered after its first use: a day, as integrators retry within one. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;

/** One idempotency key of one list: the resource it creates, under which key, from which body. */
interface IdempotencyRecord {
  /** `{collection}/{tenant}/{parent}/{idempotency key}`. */
  _id: string;
  /** The key of the resource it creates, chosen at its first use. */
  key: string;
  fingerprint: string;
  /** Set once the resource is known to have been created; until then a retry creates it. */
  created: boolean;
  at: Date;
  /** The minute of `at` since the epoch: expiry deletes whole minutes by this equality (see expire). */
  minute: number;
}

const MINUTE_MS = 60_000;
/** Minutes expired one by one in a pass, at most; more are expired in one statement over every record. */
const MAX_MINUTES_A_PASS = 60;
const minuteOf = (at: Date) => Math.floor(at.getTime() / MINUTE_MS);

/** The index expiry deletes by. */
export const IDEMPOTENCY_EXPIRY_INDEX = { key: { minute: 1 }, name: 'expiry_minute' };

/** The key was used before with another body. */
export class IdempotencyKeyReusedError extends StoreError {
  constructor(entity: string, idempotencyKey: string) {
    super(
      'RM_STORE_IDEMPOTENCY_KEY_REUSED',
      422,
      `Idempotency-Key '${idempotencyKey}' was first used with another body (to create one ${entity}); send that body again, or use a new key`,
    );
  }
}

/** The resource the key created has been deleted since: a retry cannot bring it back. */
export class IdempotentResourceGoneError extends StoreError {
  constructor(entity: string, idempotencyKey: string, key: string) {
    super(
      'RM_STORE_IDEMPOTENT_RESOURCE_GONE',
      409,
      `Idempotency-Key '${idempotencyKey}' created ${entity} '${key}', which has been deleted since; use a new key to create another`,
      { extensions: { conflicting_id: key } },
    );
  }
}

export interface IdempotentCreated<Body> {
  resource: Resource<Body>;
  /** The key was used before: this is what its first use created. */
  replayed: boolean;
}

/** What createOnce needs of the collection it creates in. */
export interface IdempotentTarget<Body> {
  name: string;
  entity: string;
  get(id: ResourceId): Promise<Resource<Body> | null>;
  /** Whether the id's resource was deleted (its tombstone is still stored). */
  isDeleted(id: ResourceId): Promise<boolean>;
}

export interface IdempotencyKeys {
  /**
   * Runs `create` at most once per idempotency key of the list in `scope`: the first use records the key
   * the resource gets, and a later one with the same body returns that resource, creating it if the first
   * stopped before it did. The record is written before the resource, so that nothing is created twice
   * whatever stops where. A refused create (4xx) frees the key; one whose outcome is unknown keeps it.
   */
  createOnce<Body>(
    target: IdempotentTarget<Body>,
    scope: Scope,
    request: { idempotencyKey: string; body: Body; newKey: string },
    create: (key: string) => Promise<Resource<Body>>,
  ): Promise<IdempotentCreated<Body>>;
  /** Forgets the keys first used before `cutoff`'s minute (a key may be kept up to a minute longer). */
  expire(cutoff: Date): Promise<number>;
}

export function createIdempotencyKeys(db: Db): IdempotencyKeys {
  const records = db.collection<IdempotencyRecord>(IDEMPOTENCY_KEYS_COLLECTION);
  /** Minutes before this one hold no record any more; unknown until the first expiry of this process. */
  let expiredBefore: number | undefined;

  /** The record of the key: a new one, or the one a first use left. */
  async function recordOf(fresh: IdempotencyRecord): Promise<IdempotencyRecord> {
    for (;;) {
      try {
        await records.insertOne(fresh);
        return fresh;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const found = await records.findOne({ _id: fresh._id } as Filter<IdempotencyRecord>);
      // else it expired between the two: insert again
      if (found !== null) return found;
    }
  }

  async function createOnce<Body>(
    target: IdempotentTarget<Body>,
    scope: Scope,
    { idempotencyKey, body, newKey }: { idempotencyKey: string; body: Body; newKey: string },
    create: (key: string) => Promise<Resource<Body>>,
  ): Promise<IdempotentCreated<Body>> {
    const _id = `${target.name}/${documentId({ ...scope, key: idempotencyKey })}`;
    const fingerprint = fingerprintOf(body);
    const at = new Date();
    const record = await orUnavailable(() => recordOf({ _id, key: newKey, fingerprint, created: false, at, minute: minuteOf(at) }));
    if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError(target.entity, idempotencyKey);
    const id = { ...scope, key: record.key };
    // an earlier use of the key recorded it: what it created may be there, or gone, or not yet made
    const seenBefore = record.key !== newKey;
    const existing = seenBefore ? await target.get(id) : null;
    if (existing !== null) {
      if (!record.created) await confirm(_id);
      return { resource: existing, replayed: true };
    }
    // created and deleted since: a create on its tombstone would answer for a resource it did not write
    if (record.created || (seenBefore && (await target.isDeleted(id)))) {
      throw new IdempotentResourceGoneError(target.entity, idempotencyKey, record.key);
    }
    let resource: Resource<Body>;
    try {
      resource = await create(record.key);
    } catch (error) {
      // a use of the key beside this one may have created it
      const created = await target.get(id);
      if (created !== null) return { resource: created, replayed: true };
      // refused (4xx): nothing was created, so the key is free for another body; else the outcome is unknown
      if (isRefusal(error)) await forget(record);
      throw error;
    }
    await confirm(_id);
    return { resource, replayed: false };
  }

  async function confirm(_id: string): Promise<void> {
    await orUnavailable(() => records.updateOne({ _id } as Filter<IdempotencyRecord>, { $set: { created: true } }));
  }

  async function forget({ _id, key }: IdempotencyRecord): Promise<void> {
    await orUnavailable(() => records.deleteOne({ _id, key, created: false } as Filter<IdempotencyRecord>));
  }

  return {
    createOnce,
    async expire(cutoff) {
      const before = minuteOf(cutoff);
      // Usually the minutes that expired since the last pass, each by an equality that FerretDB pushes down
      // to its index; every record at a process's first pass (it cannot know the oldest) or after a long pause.
      if (expiredBefore === undefined || before - expiredBefore > MAX_MINUTES_A_PASS) {
        const { deletedCount } = await records.deleteMany({ minute: { $lt: before } });
        expiredBefore = before;
        return deletedCount;
      }
      let expired = 0;
      for (; expiredBefore < before; expiredBefore += 1) expired += (await records.deleteMany({ minute: expiredBefore })).deletedCount;
      return expired;
    },
  };
}

/** The body's JSON with every object's keys sorted, hashed: the same body in another key order is the same. */
function fingerprintOf(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body, (_key, value: unknown) => sortedKeys(value))).digest('base64url');
}

function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
