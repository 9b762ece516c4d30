import { EXPOSED_EVENTS, parseTypeFilter, type EventEnvelope, type TypeFilter } from '@rm/contracts';
import type { ConsumerDefinition } from '@rm/runtime';
import type { Dispatcher } from './delivery/dispatcher.js';
import type { DeliveryStore, PendingDelivery } from './store/deliveries.js';
import type { Subscription, SubscriptionStore } from './store/subscriptions.js';

/** The webhooks service publishes nothing; it consumes the events of every resource the API exposes. */
export const SERVICE_NAME = 'webhooks';

/** The body of a delivery: the change-feed event (`GET /changes` shows the same), without the tenant. */
export function deliveryBody({ tenant: _tenant, ...event }: EventEnvelope): string {
  return JSON.stringify(event);
}

/**
 * One consumer per publishing service: each event of a tenant becomes a delivery for each of the
 * tenant's enabled subscriptions whose types take it, stored before the event is acknowledged. The
 * subscriptions come from memory (their store keeps them), so a batch costs no read of its own.
 */
export function deliveryConsumers(subscriptions: SubscriptionStore, deliveries: DeliveryStore, dispatcher: Dispatcher): ConsumerDefinition[] {
  const services = [...new Set(EXPOSED_EVENTS.map(({ service }) => service))];
  const typeFilterOf = typeFilters();
  return services.map((service) => ({
    durable: `webhooks-deliveries-${service}`,
    entities: EXPOSED_EVENTS.filter((events) => events.service === service),
    // every event counts: nothing is skipped as older, and the deliveries' ids make a repeat harmless
    versions: 'handler',
    async handleBatch(events) {
      const byTenant = new Map<string, Subscription[]>();
      for (const tenant of new Set(events.map(({ event }) => event.tenant))) {
        byTenant.set(tenant, (await subscriptions.list(tenant)).filter((subscription) => subscription.enabled));
      }
      const now = new Date();
      const pending: (PendingDelivery & { body: string })[] = [];
      for (const { event } of events) {
        const [entity, action] = [event.type.slice(0, event.type.lastIndexOf('.')), event.type.slice(event.type.lastIndexOf('.') + 1)];
        for (const subscription of byTenant.get(event.tenant) ?? []) {
          if (!typeFilterOf(subscription)(entity, action)) continue;
          pending.push({
            id: `${event.tenant}:${subscription.id}:${event.id}`,
            tenant: event.tenant,
            subscriptionId: subscription.id,
            webhookId: event.id,
            eventType: event.type,
            entityId: event.entity_id,
            attempts: 0,
            createdAt: now,
            nextAttemptAt: now,
            body: deliveryBody(event),
          });
        }
      }
      await deliveries.add(pending);
      dispatcher.add(pending.map(({ body: _body, ...delivery }) => delivery));
    },
  }));
}

/** Each subscription's type filter, parsed once: a write replaces the subscription's state, never changes it in place. */
function typeFilters(): (subscription: Subscription) => TypeFilter {
  const parsed = new WeakMap<Subscription, TypeFilter>();
  return (subscription) => {
    let filter = parsed.get(subscription);
    if (filter === undefined) {
      const types = parseTypeFilter(subscription.types.join(','));
      // stored types were checked when written: one that no longer parses takes nothing
      filter = types.ok ? types.filter : () => false;
      parsed.set(subscription, filter);
    }
    return filter;
  };
}
