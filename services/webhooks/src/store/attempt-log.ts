import type { Db } from 'mongodb';
import type { WebhookDeliveryAttempt } from '@rm/contracts';
import { orUnavailable } from '@rm/store';

/** Attempts kept per subscription, newest first. */
export const KEPT_ATTEMPTS = 100;

interface AttemptLogDocument {
  _id: string;
  attempts: WebhookDeliveryAttempt[];
}

/**
 * The recent attempts of each subscription, as `GET …/deliveries` shows them: one document per
 * subscription, written by the one dispatcher, which keeps them in memory as it goes.
 */
export function createAttemptLog(db: Db) {
  const logs = db.collection<AttemptLogDocument>('webhook_attempt_logs');
  const cached = new Map<string, WebhookDeliveryAttempt[]>();
  const key = (tenant: string, subscriptionId: string) => `${tenant}:${subscriptionId}`;

  async function attemptsOf(tenant: string, subscriptionId: string): Promise<WebhookDeliveryAttempt[]> {
    const _id = key(tenant, subscriptionId);
    const known = cached.get(_id);
    if (known !== undefined) return known;
    const attempts = (await orUnavailable(() => logs.findOne({ _id })))?.attempts ?? [];
    cached.set(_id, attempts);
    return attempts;
  }

  return {
    /** Newest first. */
    read: (tenant: string, subscriptionId: string) => attemptsOf(tenant, subscriptionId),

    async record(tenant: string, subscriptionId: string, attempt: WebhookDeliveryAttempt): Promise<void> {
      const _id = key(tenant, subscriptionId);
      await attemptsOf(tenant, subscriptionId);
      // from the cache as it is now, after the read: two attempts recorded at once both stay
      const attempts = [attempt, ...(cached.get(_id) ?? [])].slice(0, KEPT_ATTEMPTS);
      cached.set(_id, attempts);
      await orUnavailable(() => logs.updateOne({ _id }, { $set: { attempts } }, { upsert: true }));
    },

    /** A subscription deleted, or created anew under the same id: its old attempts go. */
    async forget(tenant: string, subscriptionId: string): Promise<void> {
      const _id = key(tenant, subscriptionId);
      cached.delete(_id);
      await orUnavailable(() => logs.deleteOne({ _id }));
    },
  };
}

export type AttemptLog = ReturnType<typeof createAttemptLog>;
