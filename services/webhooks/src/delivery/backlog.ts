import type { PendingDelivery } from '../store/deliveries.js';

type SubscriptionKey = Pick<PendingDelivery, 'tenant' | 'subscriptionId'>;

const keyOf = ({ tenant, subscriptionId }: SubscriptionKey) => `${tenant}:${subscriptionId}`;

/**
 * The deliveries planned and not yet settled, by subscription, oldest first: the order they were added
 * in, which is the order they were made (new ones as their events come, a restart's sorted by creation).
 * The dispatcher's queues say when each is due; this says how many a subscription has, and its oldest.
 */
export function createBacklog() {
  const bySubscription = new Map<string, Map<string, PendingDelivery>>();
  let size = 0;

  return {
    /** Adds a delivery not yet there; answers whether it was added. */
    add(delivery: PendingDelivery): boolean {
      const key = keyOf(delivery);
      let deliveries = bySubscription.get(key);
      if (deliveries === undefined) bySubscription.set(key, (deliveries = new Map()));
      if (deliveries.has(delivery.id)) return false;
      deliveries.set(delivery.id, delivery);
      size += 1;
      return true;
    },

    /** Keeps a delivery's latest plan, in its place among the oldest. */
    replan(delivery: PendingDelivery): void {
      const deliveries = bySubscription.get(keyOf(delivery));
      if (deliveries?.has(delivery.id) === true) deliveries.set(delivery.id, delivery);
    },

    /** A delivery delivered, given up or dropped. */
    settle(delivery: PendingDelivery): void {
      const key = keyOf(delivery);
      const deliveries = bySubscription.get(key);
      if (deliveries?.delete(delivery.id) !== true) return;
      size -= 1;
      if (deliveries.size === 0) bySubscription.delete(key);
    },

    /** The subscription's deliveries, oldest first. */
    of: (subscription: SubscriptionKey): Iterable<PendingDelivery> => bySubscription.get(keyOf(subscription))?.values() ?? [],

    count: (subscription: SubscriptionKey) => bySubscription.get(keyOf(subscription))?.size ?? 0,

    size: () => size,
  };
}
