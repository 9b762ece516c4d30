import { defineService } from '@rm/runtime';
import { webhooksConfigSpec } from './config.js';
import { createDispatcher } from './delivery/dispatcher.js';
import { createSender } from './delivery/sender.js';
import { deliveryConsumers, SERVICE_NAME } from './events.js';
import { deliveryMetrics } from './metrics.js';
import { subscriptionRoutes } from './routes/subscription.routes.js';
import { createAttemptLog } from './store/attempt-log.js';
import { createDeliveryStore } from './store/deliveries.js';
import { createSubscriptionStore } from './store/subscriptions.js';

/**
 * The webhooks service: integrators' subscriptions, and the deliveries of every change of their tenant
 * to them, signed as Standard Webhooks, retried for a day. It runs as one replica: its dispatcher plans
 * every delivery in memory (deploy/k8s keeps one pod, replaced, never two at once).
 */
export const webhooksService = defineService({
  name: SERVICE_NAME,
  port: 3006,
  config: webhooksConfigSpec,
  collections: () => ({}),
  async extend({ config, db, cursors, logger, startConsumer, metrics }) {
    const subscriptions = createSubscriptionStore(db);
    const deliveries = createDeliveryStore(db);
    const attempts = createAttemptLog(db);
    await subscriptions.ensureIndexes();
    const sender = createSender({
      policy: config.WEBHOOK_TARGETS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
      connectionsPerTenant: config.WEBHOOK_CONCURRENCY_PER_TENANT,
      maxPools: config.WEBHOOK_CONCURRENCY,
    });
    const dispatcher = createDispatcher({
      deliveries,
      subscriptions,
      attempts,
      sender,
      retry: { firstDelayMs: config.WEBHOOK_RETRY_FIRST_DELAY_MS, maxDelayMs: 6 * 60 * 60 * 1000, retryForMs: config.WEBHOOK_RETRY_FOR_MS },
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      maxPendingPerSubscription: config.WEBHOOK_MAX_PENDING_PER_SUBSCRIPTION,
      concurrency: config.WEBHOOK_CONCURRENCY,
      perTenant: config.WEBHOOK_CONCURRENCY_PER_TENANT,
      logger,
      metrics: deliveryMetrics(metrics, () => dispatcher.pending()),
    });
    subscriptions.onStopped(dispatcher.dropWaiting);
    await dispatcher.start();
    const consumers = await Promise.all(deliveryConsumers(subscriptions, deliveries, dispatcher).map(startConsumer));
    return {
      routes: async (api) => {
        await api.register(subscriptionRoutes, { subscriptions, attempts, cursors, targets: config.WEBHOOK_TARGETS });
      },
      async stop() {
        await Promise.all(consumers.map((consumer) => consumer.stop()));
        await dispatcher.stop();
        await sender.close();
      },
    };
  },
});
