import type { Db } from 'mongodb';
import type { WebhookDeliveryAttempt } from '@rm/contracts';
import { createDocumentLocks, orUnavailable } from '@rm/store';

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
  // one write at a time per log, each of the whole list as it is then: writes sent side by side could land in
  // any order, the last one carrying fewer attempts, and the first upserts of a log would collide on its _id
  const locks = createDocumentLocks();
  const key = (tenant: string, subscriptionId: string) => `${tenant}:${subscriptionId}`;

  /** Called holding the log's lock, so that no write or forgetting changes it under the read. */
  async function attemptsOf(_id: string): Promise<WebhookDeliveryAttempt[]> {
    const known = cached.get(_id);
    if (known !== undefined) return known;
    const stored = (await orUnavailable(() => logs.findOne({ _id })))?.attempts ?? [];
    cached.set(_id, stored);
    return stored;
  }

  return {
    /** Newest first. */
    read(tenant: string, subscriptionId: string): Promise<WebhookDeliveryAttempt[]> {
      const _id = key(tenant, subscriptionId);
      return locks.exclusive(_id, () => attemptsOf(_id));
    },

    /** Adds attempts (newest first) once they are stored. */
    async record(tenant: string, subscriptionId: string, ...attempts: WebhookDeliveryAttempt[]): Promise<void> {
      const _id = key(tenant, subscriptionId);
      await locks.exclusive(_id, async () => {
        const kept = [...attempts, ...(await attemptsOf(_id))].slice(0, KEPT_ATTEMPTS);
        await orUnavailable(() => logs.updateOne({ _id }, { $set: { attempts: kept } }, { upsert: true }));
        cached.set(_id, kept);
      });
    },

    /** A subscription deleted, or created anew under the same id: its old attempts go. */
    async forget(tenant: string, subscriptionId: string): Promise<void> {
      const _id = key(tenant, subscriptionId);
      await locks.exclusive(_id, async () => {
        await orUnavailable(() => logs.deleteOne({ _id }));
        cached.delete(_id);
      });
    },
  };
}

export type AttemptLog = ReturnType<typeof createAttemptLog>;
