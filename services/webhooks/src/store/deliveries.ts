import type { Db } from 'mongodb';
import { isDuplicateKeyError, orUnavailable } from '@rm/store';

/** A delivery still to make: one event for one subscription, until it is delivered or given up. */
export interface PendingDelivery {
  /** `<tenant>:<subscription id>:<event id>`. */
  id: string;
  tenant: string;
  subscriptionId: string;
  /** The `webhook-id` of every attempt: the event's id. */
  webhookId: string;
  eventType: string;
  entityId: string;
  attempts: number;
  /** When the delivery was stored: its retry period counts from here, tried or not. */
  createdAt: Date;
  nextAttemptAt: Date;
}

interface DeliveryDocument {
  _id: string;
  tenant: string;
  subscription_id: string;
  webhook_id: string;
  event_type: string;
  entity_id: string;
  body: string;
  attempts: number;
  /** Absent from deliveries stored by earlier versions, which wrote `first_attempt_at` instead. */
  created_at?: Date;
  first_attempt_at?: Date;
  next_attempt_at: Date;
}

function fromDocument(document: Omit<DeliveryDocument, 'body'>): PendingDelivery {
  return {
    id: document._id,
    tenant: document.tenant,
    subscriptionId: document.subscription_id,
    webhookId: document.webhook_id,
    eventType: document.event_type,
    entityId: document.entity_id,
    attempts: document.attempts,
    // stored by an earlier version: a tried one's first attempt, or an untried one's plan (made when it was created)
    createdAt: document.created_at ?? document.first_attempt_at ?? document.next_attempt_at,
    nextAttemptAt: document.next_attempt_at,
  };
}

/**
 * The deliveries not yet made, with their bodies: a delivery leaves when it is delivered, given up or
 * dropped (its outcome goes to the attempt log), so the collection holds only the backlog.
 */
export function createDeliveryStore(db: Db) {
  const deliveries = db.collection<DeliveryDocument>('webhook_deliveries');

  return {
    /** Adds the deliveries of new events; one added before (an event handed over again) is kept as it is. */
    async add(pending: readonly (PendingDelivery & { body: string })[]): Promise<void> {
      if (pending.length === 0) return;
      const documents = pending.map((delivery): DeliveryDocument => ({
        _id: delivery.id,
        tenant: delivery.tenant,
        subscription_id: delivery.subscriptionId,
        webhook_id: delivery.webhookId,
        event_type: delivery.eventType,
        entity_id: delivery.entityId,
        body: delivery.body,
        attempts: 0,
        created_at: delivery.createdAt,
        next_attempt_at: delivery.nextAttemptAt,
      }));
      try {
        await orUnavailable(() => deliveries.insertMany(documents, { ordered: false }));
      } catch (error) {
        // unordered: every other one was inserted
        if (!isDuplicateKeyError(error)) throw error;
      }
    },

    /** Every delivery still to make, without bodies, oldest first: what a starting dispatcher schedules. */
    async all(): Promise<PendingDelivery[]> {
      const found = (await orUnavailable(() => deliveries.find({}, { projection: { body: 0 } }).toArray())).map(fromDocument);
      // sorted here: no index serves it, and the dispatcher holds them all in memory anyway
      return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },

    async body(id: string): Promise<string | undefined> {
      return (await orUnavailable(() => deliveries.findOne({ _id: id }, { projection: { body: 1 } })))?.body;
    },

    async retryLater(delivery: PendingDelivery): Promise<void> {
      await orUnavailable(() =>
        deliveries.updateOne(
          { _id: delivery.id },
          { $set: { attempts: delivery.attempts, next_attempt_at: delivery.nextAttemptAt } },
        ),
      );
    },

    async remove(id: string): Promise<void> {
      await orUnavailable(() => deliveries.deleteOne({ _id: id }));
    },

    /** Removes deliveries dropped together (a full backlog's oldest, a stopped subscription's waiting ones). */
    async removeAll(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await orUnavailable(() => deliveries.deleteMany({ _id: { $in: [...ids] } }));
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
