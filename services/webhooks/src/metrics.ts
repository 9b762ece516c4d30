import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type AttemptOutcome = 'delivered' | 'failed' | 'gave-up' | 'dropped';

/** Why deliveries were dropped unsent: their subscription was disabled or deleted, or their backlog was full. */
export type DropReason = 'disabled' | 'deleted' | 'backlog-full';

/** What the dispatcher tells of itself: attempts by outcome, their durations, the backlog, and how late deliveries go out. */
export interface DeliveryMetrics {
  attempted(outcome: Exclude<AttemptOutcome, 'dropped'>, durationMs: number | undefined): void;
  /** Deliveries dropped unsent, counted as attempts too (outcome `dropped`). */
  dropped(reason: DropReason, count: number): void;
  /** An attempt started this long after it was due: how long its tenant waited for a free attempt. */
  started(lateMs: number): void;
}

export function deliveryMetrics(registry: Registry, pending: () => number): DeliveryMetrics {
  const attempts = new Counter({
    name: 'rm_webhook_attempts_total',
    help: 'Delivery attempts by outcome: delivered, failed (tried again later), gave-up (after the retry period), dropped (not sent: see rm_webhook_deliveries_dropped_total)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const dropped = new Counter({
    name: 'rm_webhook_deliveries_dropped_total',
    help: "Deliveries dropped unsent by reason: disabled or deleted (their subscription's), backlog-full (the oldest beyond a subscription's pending limit)",
    labelNames: ['reason'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rm_webhook_attempt_duration_seconds',
    help: 'Time from sending an attempt to its answer, or to its failure',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const late = new Histogram({
    name: 'rm_webhook_start_delay_seconds',
    help: "Time from when a delivery was due until its attempt started: a tenant's wait for a free attempt",
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300],
    registers: [registry],
  });
  new Gauge({
    name: 'rm_webhook_deliveries_pending',
    help: 'Deliveries planned and not yet delivered, given up or dropped',
    registers: [registry],
    collect() {
      this.set(pending());
    },
  });
  return {
    attempted(outcome, durationMs) {
      attempts.inc({ outcome });
      if (durationMs !== undefined) duration.observe(durationMs / 1000);
    },
    dropped(reason, count) {
      attempts.inc({ outcome: 'dropped' }, count);
      dropped.inc({ reason }, count);
    },
    started: (lateMs) => late.observe(Math.max(0, lateMs) / 1000),
  };
}
