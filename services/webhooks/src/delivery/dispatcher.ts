import type { Logger } from '@rm/service-kit';
import { nextAttemptAt, type RetryPolicy } from '../domain/retry-schedule.js';
import type { AttemptOutcome, DeliveryMetrics } from '../metrics.js';
import type { AttemptLog } from '../store/attempt-log.js';
import type { DeliveryStore, PendingDelivery } from '../store/deliveries.js';
import type { Subscription, SubscriptionStore } from '../store/subscriptions.js';
import type { AttemptResult, Sender } from './sender.js';

export interface DispatcherOptions {
  deliveries: DeliveryStore;
  subscriptions: SubscriptionStore;
  attempts: AttemptLog;
  sender: Sender;
  retry: RetryPolicy;
  /** A subscription whose every attempt failed for this long is disabled. */
  disableAfterMs: number;
  /** Attempts under way at once. */
  concurrency: number;
  /** Attempts of one tenant under way at once: its slow receivers hold these, never the others'. */
  perTenant: number;
  logger: Logger;
  metrics: DeliveryMetrics;
  random?: () => number;
}

interface TenantQueue {
  /** By next attempt, earliest first. */
  due: PendingDelivery[];
  inFlight: number;
}

/** A delivery whose attempt could not be recorded (the database away) is tried again after this long. */
const RECORDING_RETRY_MS = 5_000;
/** The longest the dispatcher sleeps: it looks again at least this often. */
const LONGEST_SLEEP_MS = 60_000;

/**
 * Makes the deliveries, each as soon as it is due: at most `perTenant` of one tenant and `concurrency`
 * in all at once, the tenants taken in turn, so that a tenant whose receivers are slow or dead waits
 * on its own attempts only. Each outcome is recorded before the next attempt of that delivery is planned.
 */
export function createDispatcher(options: DispatcherOptions) {
  const { deliveries, subscriptions, attempts, sender, retry, disableAfterMs, concurrency, perTenant, logger, metrics, random = Math.random } = options;
  const tenants = new Map<string, TenantQueue>();
  const scheduled = new Set<string>();
  const running = new Set<Promise<void>>();
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function schedule(delivery: PendingDelivery): void {
    if (stopped || scheduled.has(delivery.id)) return;
    scheduled.add(delivery.id);
    let queue = tenants.get(delivery.tenant);
    if (queue === undefined) tenants.set(delivery.tenant, (queue = { due: [], inFlight: 0 }));
    const at = delivery.nextAttemptAt.getTime();
    let index = queue.due.length;
    while (index > 0 && queue.due[index - 1]!.nextAttemptAt.getTime() > at) index -= 1;
    queue.due.splice(index, 0, delivery);
    setImmediate(pump);
  }

  function pump(): void {
    if (stopped) return;
    const now = Date.now();
    let started = true;
    // one attempt per tenant per round, until nothing more may start
    while (started && inFlight < concurrency) {
      started = false;
      for (const queue of tenants.values()) {
        if (inFlight >= concurrency) break;
        const next = queue.due[0];
        if (queue.inFlight >= perTenant || next === undefined || next.nextAttemptAt.getTime() > now) continue;
        queue.due.shift();
        start(queue, next);
        started = true;
      }
    }
    for (const [tenant, queue] of tenants) if (queue.due.length === 0 && queue.inFlight === 0) tenants.delete(tenant);
    clearTimeout(timer);
    // every attempt that ends pumps again: while all are taken there is nothing to wait for
    if (inFlight >= concurrency) return;
    let earliest = Infinity;
    for (const queue of tenants.values()) {
      if (queue.inFlight < perTenant) earliest = Math.min(earliest, queue.due[0]?.nextAttemptAt.getTime() ?? Infinity);
    }
    timer = setTimeout(pump, Math.min(Math.max(earliest - now, 0), LONGEST_SLEEP_MS));
  }

  function start(queue: TenantQueue, delivery: PendingDelivery): void {
    metrics.started(Date.now() - delivery.nextAttemptAt.getTime());
    inFlight += 1;
    queue.inFlight += 1;
    const attempt = attemptDelivery(delivery)
      .catch((err: unknown) => {
        logger.warn({ err, delivery: delivery.id }, 'a delivery attempt could not be recorded; trying it again later');
        scheduled.delete(delivery.id);
        schedule({ ...delivery, nextAttemptAt: new Date(Date.now() + RECORDING_RETRY_MS) });
      })
      .finally(() => {
        inFlight -= 1;
        queue.inFlight -= 1;
        running.delete(attempt);
        setImmediate(pump);
      });
    running.add(attempt);
  }

  /** Logs an attempt for the caller to see, and counts it. */
  async function record(delivery: PendingDelivery, outcome: AttemptOutcome, result: Partial<AttemptResult>, next?: Date): Promise<void> {
    metrics.attempted(outcome, result.durationMs);
    await attempts.record(delivery.tenant, delivery.subscriptionId, entry(delivery, outcome, result, next));
  }

  async function attemptDelivery(delivery: PendingDelivery): Promise<void> {
    const subscription = await subscriptions.get(delivery.tenant, delivery.subscriptionId);
    const body = subscription?.enabled === true ? await deliveries.body(delivery.id) : undefined;
    if (subscription === undefined || !subscription.enabled || body === undefined) {
      if (subscription !== undefined && !subscription.enabled) {
        await record(delivery, 'dropped', { error: 'the subscription is disabled' });
      }
      await deliveries.remove(delivery.id);
      scheduled.delete(delivery.id);
      return;
    }
    const result = await sender.send({ url: subscription.url, secret: subscription.secret, webhookId: delivery.webhookId, body });
    const now = new Date();
    const tried = { ...delivery, attempts: delivery.attempts + 1, firstAttemptAt: delivery.firstAttemptAt ?? now };
    if (result.delivered) {
      await deliveries.remove(delivery.id);
      await subscriptions.delivered(subscription);
      await record(tried, 'delivered', result);
      scheduled.delete(delivery.id);
      return;
    }
    await failed(subscription, tried, result, now);
  }

  async function failed(subscription: Subscription, tried: PendingDelivery, result: AttemptResult, now: Date): Promise<void> {
    const disabled = await subscriptions.failed(subscription, now, disableAfterMs);
    const next = disabled ? undefined : nextAttemptAt(retry, tried.firstAttemptAt!, tried.attempts, now, random());
    if (next === undefined) {
      await deliveries.remove(tried.id);
      await record(tried, 'gave-up', result);
      if (disabled) logger.warn({ tenant: tried.tenant, subscription: tried.subscriptionId }, 'webhook subscription disabled: its deliveries failed for too long');
      scheduled.delete(tried.id);
      return;
    }
    const later = { ...tried, nextAttemptAt: next };
    await deliveries.retryLater(later);
    await record(tried, 'failed', result, next);
    scheduled.delete(tried.id);
    schedule(later);
  }

  return {
    /** Schedules what the database holds: the deliveries a stopped dispatcher left. */
    async start(): Promise<void> {
      for (const delivery of await deliveries.all()) schedule(delivery);
    },
    schedule,
    /** Deliveries planned and not yet settled. */
    pending: () => scheduled.size,
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

function entry(delivery: PendingDelivery, outcome: AttemptOutcome, result: Partial<AttemptResult>, next?: Date) {
  return {
    webhook_id: delivery.webhookId,
    event_type: delivery.eventType,
    entity_id: delivery.entityId,
    attempt: Math.max(delivery.attempts, 1),
    attempted_at: new Date().toISOString(),
    outcome,
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.durationMs === undefined ? {} : { duration_ms: result.durationMs }),
    ...(next === undefined ? {} : { next_attempt_at: next.toISOString() }),
  };
}
