import type { Logger } from '@rm/service-kit';
import { isExpired, nextAttemptAt, type RetryPolicy } from '../domain/retry-schedule.js';
import type { AttemptOutcome, DeliveryMetrics, DropReason } from '../metrics.js';
import { KEPT_ATTEMPTS, type AttemptLog } from '../store/attempt-log.js';
import type { DeliveryStore, PendingDelivery } from '../store/deliveries.js';
import type { StopReason, SubscriptionStore } from '../store/subscriptions.js';
import { createBacklog } from './backlog.js';
import type { AttemptResult, Sender } from './sender.js';

export interface DispatcherOptions {
  deliveries: DeliveryStore;
  subscriptions: SubscriptionStore;
  attempts: AttemptLog;
  sender: Sender;
  retry: RetryPolicy;
  /** A subscription whose every attempt failed for this long is disabled. */
  disableAfterMs: number;
  /** Deliveries of one subscription planned at once: beyond, its oldest waiting ones are dropped. */
  maxPendingPerSubscription: number;
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
 * What waits is bounded: by its retry period, counted from when the delivery was made, and by
 * `maxPendingPerSubscription`; a subscription disabled or deleted drops what it has waiting at once.
 */
export function createDispatcher(options: DispatcherOptions) {
  const { deliveries, subscriptions, attempts, sender, retry, disableAfterMs, maxPendingPerSubscription, concurrency, perTenant, logger, metrics, random = Math.random } = options;
  const tenants = new Map<string, TenantQueue>();
  const backlog = createBacklog();
  /** Deliveries whose attempt is under way: never dropped from under it. */
  const attempting = new Set<string>();
  const running = new Set<Promise<void>>();
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function track(work: Promise<void>): void {
    running.add(work);
    void work.finally(() => running.delete(work));
  }

  /** Puts a planned delivery in its tenant's queue, by when it is due. */
  function enqueue(delivery: PendingDelivery): void {
    let queue = tenants.get(delivery.tenant);
    if (queue === undefined) tenants.set(delivery.tenant, (queue = { due: [], inFlight: 0 }));
    const at = delivery.nextAttemptAt.getTime();
    let index = queue.due.length;
    while (index > 0 && queue.due[index - 1]!.nextAttemptAt.getTime() > at) index -= 1;
    queue.due.splice(index, 0, delivery);
    setImmediate(pump);
  }

  /** Plans new deliveries (or, at start, the stored ones, oldest first); a subscription that now has too many drops its oldest. */
  function add(added: readonly PendingDelivery[]): void {
    if (stopped) return;
    const grown = new Map<string, PendingDelivery>();
    for (const delivery of added) {
      if (!backlog.add(delivery)) continue;
      enqueue(delivery);
      grown.set(`${delivery.tenant}:${delivery.subscriptionId}`, delivery);
    }
    for (const { tenant, subscriptionId } of grown.values()) {
      const excess = backlog.count({ tenant, subscriptionId }) - maxPendingPerSubscription;
      if (excess > 0) drop(tenant, subscriptionId, oldestWaiting(tenant, subscriptionId, excess), 'backlog-full');
    }
  }

  /** The subscription's oldest deliveries whose attempt is not under way, at most `count`. */
  function oldestWaiting(tenant: string, subscriptionId: string, count = Infinity): PendingDelivery[] {
    const found: PendingDelivery[] = [];
    for (const delivery of backlog.of({ tenant, subscriptionId })) {
      if (found.length >= count) break;
      if (!attempting.has(delivery.id)) found.push(delivery);
    }
    return found;
  }

  /**
   * Drops waiting deliveries unsent: out of the plan at once, then out of the database and into the
   * attempt log. Should those writes fail, the deliveries stay stored, and a restart drops them again.
   */
  function drop(tenant: string, subscriptionId: string, dropped: PendingDelivery[], reason: DropReason): void {
    if (dropped.length === 0) return;
    const ids = new Set(dropped.map(({ id }) => id));
    for (const delivery of dropped) backlog.settle(delivery);
    const queue = tenants.get(tenant);
    if (queue !== undefined) queue.due = queue.due.filter(({ id }) => !ids.has(id));
    metrics.dropped(reason, dropped.length);
    if (reason === 'backlog-full') {
      logger.warn({ tenant, subscription: subscriptionId, dropped: dropped.length, limit: maxPendingPerSubscription }, 'webhook backlog full: its oldest deliveries were dropped');
    }
    track(
      recordDropped(tenant, subscriptionId, dropped, reason).catch((err: unknown) => {
        logger.warn({ err, tenant, subscription: subscriptionId }, 'dropped webhook deliveries could not be removed or logged');
      }),
    );
  }

  async function recordDropped(tenant: string, subscriptionId: string, dropped: PendingDelivery[], reason: DropReason): Promise<void> {
    await deliveries.removeAll(dropped.map(({ id }) => id));
    // a deleted subscription's log went with it
    if (reason === 'deleted') return;
    const error = reason === 'disabled' ? 'the subscription is disabled' : `more than ${maxPendingPerSubscription} deliveries were waiting; the oldest were dropped`;
    const newestFirst = dropped.slice(-KEPT_ATTEMPTS).reverse();
    await attempts.record(tenant, subscriptionId, ...newestFirst.map((delivery) => entry(delivery, 'dropped', { error })));
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
    attempting.add(delivery.id);
    const attempt = attemptDelivery(delivery)
      .catch((err: unknown) => {
        logger.warn({ err, delivery: delivery.id }, 'a delivery attempt could not be recorded; trying it again later');
        replan({ ...delivery, nextAttemptAt: new Date(Date.now() + RECORDING_RETRY_MS) });
      })
      .finally(() => {
        inFlight -= 1;
        queue.inFlight -= 1;
        attempting.delete(delivery.id);
        setImmediate(pump);
      });
    track(attempt);
  }

  function replan(delivery: PendingDelivery): void {
    backlog.replan(delivery);
    enqueue(delivery);
  }

  /** Logs an attempt for the caller to see, and counts it. */
  async function record(delivery: PendingDelivery, outcome: Exclude<AttemptOutcome, 'dropped'>, result: Partial<AttemptResult>, next?: Date): Promise<void> {
    metrics.attempted(outcome, result.durationMs);
    await attempts.record(delivery.tenant, delivery.subscriptionId, entry(delivery, outcome, result, next));
  }

  async function attemptDelivery(delivery: PendingDelivery): Promise<void> {
    const subscription = await subscriptions.get(delivery.tenant, delivery.subscriptionId);
    if (subscription === undefined || !subscription.enabled) {
      // its subscription stopped while an attempt of it was under way (the waiting ones were dropped then), or before a restart
      const reason = subscription === undefined ? 'deleted' : 'disabled';
      await recordDropped(delivery.tenant, delivery.subscriptionId, [delivery], reason);
      metrics.dropped(reason, 1);
      backlog.settle(delivery);
      return;
    }
    const now = new Date();
    if (isExpired(retry, delivery.createdAt, delivery.nextAttemptAt, now)) {
      await deliveries.remove(delivery.id);
      await record(delivery, 'gave-up', { error: 'its retry period ended before an attempt of its tenant was free' });
      backlog.settle(delivery);
      return;
    }
    const body = await deliveries.body(delivery.id);
    if (body === undefined) {
      // no longer stored: nothing to send
      backlog.settle(delivery);
      return;
    }
    const result = await sender.send({ tenant: delivery.tenant, url: subscription.url, secret: subscription.secret, webhookId: delivery.webhookId, body });
    const tried = { ...delivery, attempts: delivery.attempts + 1 };
    if (result.delivered) {
      await deliveries.remove(delivery.id);
      await subscriptions.delivered(delivery.tenant, delivery.subscriptionId);
      await record(tried, 'delivered', result);
      backlog.settle(delivery);
      return;
    }
    await failed(tried, result, new Date());
  }

  async function failed(tried: PendingDelivery, result: AttemptResult, now: Date): Promise<void> {
    const disabled = await subscriptions.failed(tried.tenant, tried.subscriptionId, now, disableAfterMs);
    const next = disabled ? undefined : nextAttemptAt(retry, tried.createdAt, tried.attempts, now, random());
    if (next === undefined) {
      await deliveries.remove(tried.id);
      await record(tried, 'gave-up', result);
      if (disabled) logger.warn({ tenant: tried.tenant, subscription: tried.subscriptionId }, 'webhook subscription disabled: its deliveries failed for too long');
      backlog.settle(tried);
      return;
    }
    const later = { ...tried, nextAttemptAt: next };
    await deliveries.retryLater(later);
    await record(tried, 'failed', result, next);
    replan(later);
  }

  return {
    /** Plans what the database holds: the deliveries a stopped dispatcher left. */
    async start(): Promise<void> {
      add(await deliveries.all());
    },
    add,
    /** A subscription disabled or deleted: what it has waiting is dropped now, what is under way when it ends. */
    dropWaiting(tenant: string, subscriptionId: string, reason: StopReason): void {
      drop(tenant, subscriptionId, oldestWaiting(tenant, subscriptionId), reason);
    },
    /** Deliveries planned and not yet settled. */
    pending: () => backlog.size(),
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
