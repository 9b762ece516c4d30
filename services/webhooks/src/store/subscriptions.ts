import type { Db } from 'mongodb';
import type { IfMatch } from '@rm/service-kit';
import { ConcurrentWriteError, createDocumentLocks, isDuplicateKeyError, orUnavailable, PreconditionFailedError, ResourceNotFoundError } from '@rm/store';

const ENTITY = 'webhook-subscription';

/** What a caller sets of a subscription. */
export interface SubscriptionFields {
  url: string;
  types: string[];
  description?: string;
  enabled: boolean;
}

export interface Subscription extends SubscriptionFields {
  tenant: string;
  id: string;
  version: number;
  secret: string;
  disabledReason?: string;
  /** The first failed attempt since the last delivered one: three days of it disable the subscription. */
  failingSince?: Date;
}

interface SubscriptionDocument extends Omit<Subscription, 'disabledReason' | 'failingSince'> {
  _id: string;
  disabled_reason?: string;
  failing_since?: Date;
}

const documentId = (tenant: string, id: string) => `${tenant}:${id}`;

function fromDocument({ _id, disabled_reason, failing_since, ...rest }: SubscriptionDocument): Subscription {
  return { ...rest, ...(disabled_reason === undefined ? {} : { disabledReason: disabled_reason }), ...(failing_since === undefined ? {} : { failingSince: failing_since }) };
}

function toDocument({ disabledReason, failingSince, ...rest }: Subscription): SubscriptionDocument {
  return {
    _id: documentId(rest.tenant, rest.id),
    ...rest,
    ...(disabledReason === undefined ? {} : { disabled_reason: disabledReason }),
    ...(failingSince === undefined ? {} : { failing_since: failingSince }),
  };
}

function matches(ifMatch: IfMatch | undefined, version: number | undefined): boolean {
  if (ifMatch === undefined) return true;
  if ('any' in ifMatch) return version !== undefined;
  return version !== undefined && ifMatch.versions.includes(version);
}

/** Why a subscription's waiting deliveries are not to be sent. */
export type StopReason = 'disabled' | 'deleted';

/**
 * The subscriptions, one document each, by tenant and id, and in memory: a tenant's are read once, at
 * the first need, and kept up to date by the writes below, since this service is their only writer and
 * runs as one replica (README). A tenant has at most MAX_WEBHOOK_SUBSCRIPTIONS; every statement is an
 * equality on `_id` or `tenant` (what FerretDB serves with an index).
 */
export function createSubscriptionStore(db: Db) {
  const subscriptions = db.collection<SubscriptionDocument>('webhook_subscriptions');
  const tenants = new Map<string, Promise<Map<string, Subscription>>>();
  // one write at a time per subscription: each starts from the state the last one left, in memory as in the database
  const locks = createDocumentLocks();
  const stopListeners: ((tenant: string, id: string, reason: StopReason) => void)[] = [];

  /** The tenant's subscriptions by id, read once; concurrent first callers share the read, a failed one is read again. */
  function loaded(tenant: string): Promise<Map<string, Subscription>> {
    const known = tenants.get(tenant);
    if (known !== undefined) return known;
    const reading = orUnavailable(() => subscriptions.find({ tenant }).toArray()).then((found) => new Map(found.map((document) => [document.id, fromDocument(document)])));
    tenants.set(tenant, reading);
    reading.catch(() => tenants.delete(tenant));
    return reading;
  }

  function stopped(tenant: string, id: string, reason: StopReason): void {
    for (const listener of stopListeners) listener(tenant, id, reason);
  }

  return {
    ensureIndexes: () => orUnavailable(() => subscriptions.createIndex({ tenant: 1 })),

    /** Tells `listener` of every subscription disabled (by its owner, or for failing) or deleted, once written. */
    onStopped(listener: (tenant: string, id: string, reason: StopReason) => void): void {
      stopListeners.push(listener);
    },

    async get(tenant: string, id: string): Promise<Subscription | undefined> {
      return (await loaded(tenant)).get(id);
    },

    /** The tenant's subscriptions in id order. */
    async list(tenant: string): Promise<Subscription[]> {
      return [...(await loaded(tenant)).values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

    /**
     * Creates the subscription, or replaces what its caller may set (the secret stays): version 1 or one
     * more. A re-enabled subscription forgets why it was disabled and since when it failed.
     */
    async put(tenant: string, id: string, fields: SubscriptionFields, ifMatch: IfMatch | undefined, newSecret: () => string): Promise<{ created: boolean; subscription: Subscription }> {
      const _id = documentId(tenant, id);
      const known = await loaded(tenant);
      const written = await locks.exclusive(_id, async () => {
        const current = known.get(id);
        if (!matches(ifMatch, current?.version)) throw new PreconditionFailedError(ENTITY, id, current?.version);
        if (current === undefined) {
          const created: SubscriptionDocument = { _id, tenant, id, ...fields, version: 1, secret: newSecret() };
          try {
            await orUnavailable(() => subscriptions.insertOne(created));
          } catch (error) {
            if (isDuplicateKeyError(error)) throw new ConcurrentWriteError(ENTITY, id);
            throw error;
          }
          const subscription = fromDocument(created);
          known.set(id, subscription);
          return { created: true, subscription };
        }
        const { description: _description, disabledReason, failingSince, ...kept } = current;
        const next: Subscription = { ...kept, ...fields, version: current.version + 1 };
        // an enabled subscription starts afresh; one left disabled keeps why and since when
        if (!fields.enabled && disabledReason !== undefined) next.disabledReason = disabledReason;
        if (!fields.enabled && failingSince !== undefined) next.failingSince = failingSince;
        const { matchedCount } = await orUnavailable(() => subscriptions.replaceOne({ _id, version: current.version }, toDocument(next)));
        if (matchedCount === 0) throw new ConcurrentWriteError(ENTITY, id);
        known.set(id, next);
        return { created: false, subscription: next };
      });
      if (!written.subscription.enabled) stopped(tenant, id, 'disabled');
      return written;
    },

    async remove(tenant: string, id: string, ifMatch: IfMatch | undefined): Promise<void> {
      const _id = documentId(tenant, id);
      const known = await loaded(tenant);
      await locks.exclusive(_id, async () => {
        const current = known.get(id);
        if (current === undefined) throw ifMatch === undefined ? new ResourceNotFoundError(ENTITY, id) : new PreconditionFailedError(ENTITY, id, undefined);
        if (!matches(ifMatch, current.version)) throw new PreconditionFailedError(ENTITY, id, current.version);
        const { deletedCount } = await orUnavailable(() => subscriptions.deleteOne({ _id, version: current.version }));
        if (deletedCount === 0) throw new ConcurrentWriteError(ENTITY, id);
        known.delete(id);
      });
      stopped(tenant, id, 'deleted');
    },

    /** Records a delivered attempt: the subscription is no longer failing. */
    async delivered(tenant: string, id: string): Promise<void> {
      const _id = documentId(tenant, id);
      const known = await loaded(tenant);
      await locks.exclusive(_id, async () => {
        const current = known.get(id);
        if (current?.failingSince === undefined) return;
        await orUnavailable(() => subscriptions.updateOne({ _id }, { $unset: { failing_since: '' } }));
        const { failingSince: _since, ...rest } = current;
        known.set(id, rest);
      });
    },

    /** Records a failed attempt; after `disableAfterMs` of failures only, the subscription is disabled. Answers whether it was. */
    async failed(tenant: string, id: string, now: Date, disableAfterMs: number): Promise<boolean> {
      const _id = documentId(tenant, id);
      const known = await loaded(tenant);
      const disabled = await locks.exclusive(_id, async () => {
        const current = known.get(id);
        // deleted or disabled while the attempt was under way: nothing more to record
        if (current === undefined || !current.enabled) return false;
        const since = current.failingSince;
        if (since === undefined) {
          await orUnavailable(() => subscriptions.updateOne({ _id }, { $set: { failing_since: now } }));
          known.set(id, { ...current, failingSince: now });
          return false;
        }
        if (now.getTime() - since.getTime() < disableAfterMs) return false;
        const reason = `Every delivery failed from ${since.toISOString()} to ${now.toISOString()}; set enabled to true to start again.`;
        const next = { ...current, enabled: false, disabledReason: reason, version: current.version + 1 };
        const { matchedCount } = await orUnavailable(() =>
          subscriptions.updateOne({ _id, version: current.version }, { $set: { enabled: false, disabled_reason: reason, version: next.version } }),
        );
        if (matchedCount === 0) return false;
        known.set(id, next);
        return true;
      });
      if (disabled) stopped(tenant, id, 'disabled');
      return disabled;
    },
  };
}

export type SubscriptionStore = ReturnType<typeof createSubscriptionStore>;
