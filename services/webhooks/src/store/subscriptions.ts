import type { Db } from 'mongodb';
import type { IfMatch } from '@rm/service-kit';
import { ConcurrentWriteError, isDuplicateKeyError, orUnavailable, PreconditionFailedError, ResourceNotFoundError } from '@rm/store';

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

function matches(ifMatch: IfMatch | undefined, version: number | undefined): boolean {
  if (ifMatch === undefined) return true;
  if ('any' in ifMatch) return version !== undefined;
  return version !== undefined && ifMatch.versions.includes(version);
}

/**
 * The subscriptions, one document each, by tenant and id. Every statement is an equality on `_id` or
 * `tenant` (what FerretDB serves with an index); a tenant has at most MAX_WEBHOOK_SUBSCRIPTIONS.
 */
export function createSubscriptionStore(db: Db) {
  const subscriptions = db.collection<SubscriptionDocument>('webhook_subscriptions');

  return {
    ensureIndexes: () => orUnavailable(() => subscriptions.createIndex({ tenant: 1 })),

    async get(tenant: string, id: string): Promise<Subscription | undefined> {
      const found = await orUnavailable(() => subscriptions.findOne({ _id: documentId(tenant, id) }));
      return found === null ? undefined : fromDocument(found);
    },

    /** The tenant's subscriptions in id order. */
    async list(tenant: string): Promise<Subscription[]> {
      const found = await orUnavailable(() => subscriptions.find({ tenant }).toArray());
      return found.map(fromDocument).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

    /**
     * Creates the subscription, or replaces what its caller may set (the secret stays): version 1 or one
     * more. A re-enabled subscription forgets why it was disabled and since when it failed.
     */
    async put(tenant: string, id: string, fields: SubscriptionFields, ifMatch: IfMatch | undefined, newSecret: () => string): Promise<{ created: boolean; subscription: Subscription }> {
      const _id = documentId(tenant, id);
      const current = await orUnavailable(() => subscriptions.findOne({ _id }));
      if (!matches(ifMatch, current?.version)) throw new PreconditionFailedError(ENTITY, id, current?.version);
      if (current === null) {
        const created: SubscriptionDocument = { _id, tenant, id, ...fields, version: 1, secret: newSecret() };
        try {
          await orUnavailable(() => subscriptions.insertOne(created));
        } catch (error) {
          if (isDuplicateKeyError(error)) throw new ConcurrentWriteError(ENTITY, id);
          throw error;
        }
        return { created: true, subscription: fromDocument(created) };
      }
      const { description: _description, ...kept } = fields;
      const next: SubscriptionDocument = { ...current, ...kept, version: current.version + 1 };
      if (fields.description === undefined) delete next.description;
      else next.description = fields.description;
      if (fields.enabled) {
        delete next.disabled_reason;
        delete next.failing_since;
      }
      const { matchedCount } = await orUnavailable(() => subscriptions.replaceOne({ _id, version: current.version }, next));
      if (matchedCount === 0) throw new ConcurrentWriteError(ENTITY, id);
      return { created: false, subscription: fromDocument(next) };
    },

    async remove(tenant: string, id: string, ifMatch: IfMatch | undefined): Promise<void> {
      const _id = documentId(tenant, id);
      const current = await orUnavailable(() => subscriptions.findOne({ _id }));
      if (current === null) throw ifMatch === undefined ? new ResourceNotFoundError(ENTITY, id) : new PreconditionFailedError(ENTITY, id, undefined);
      if (!matches(ifMatch, current.version)) throw new PreconditionFailedError(ENTITY, id, current.version);
      const { deletedCount } = await orUnavailable(() => subscriptions.deleteOne({ _id, version: current.version }));
      if (deletedCount === 0) throw new ConcurrentWriteError(ENTITY, id);
    },

    /** Records a delivered attempt: the subscription is no longer failing. */
    async delivered(subscription: Subscription): Promise<void> {
      if (subscription.failingSince === undefined) return;
      await orUnavailable(() => subscriptions.updateOne({ _id: documentId(subscription.tenant, subscription.id) }, { $unset: { failing_since: '' } }));
    },

    /** Records a failed attempt; after `disableAfterMs` of failures only, the subscription is disabled. Answers whether it was. */
    async failed(subscription: Subscription, now: Date, disableAfterMs: number): Promise<boolean> {
      const _id = documentId(subscription.tenant, subscription.id);
      const since = subscription.failingSince;
      if (since === undefined) {
        await orUnavailable(() => subscriptions.updateOne({ _id }, { $set: { failing_since: now } }));
        return false;
      }
      if (now.getTime() - since.getTime() < disableAfterMs) return false;
      const reason = `Every delivery failed from ${since.toISOString()} to ${now.toISOString()}; set enabled to true to start again.`;
      await orUnavailable(() =>
        subscriptions.updateOne({ _id, version: subscription.version }, { $set: { enabled: false, disabled_reason: reason, version: subscription.version + 1 } }),
      );
      return true;
    },
  };
}

export type SubscriptionStore = ReturnType<typeof createSubscriptionStore>;
