import type { ConsumerInfo, JetStreamManager } from '@nats-io/jetstream';
import type { ConsumerMetrics, OutboxRelay } from '@rm/bus';
import { withDeadline } from '@rm/service-kit';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Longest a scrape waits for NATS or MongoDB: it must answer even while they are away. */
export const SCRAPE_PROBE_TIMEOUT_MS = 1_000;

/** The outbox gauges, read from the relay's in-memory view at scrape time (no database query: see OutboxRelay.backlog). */
export function observeOutbox(registry: Registry, relay: Pick<OutboxRelay, 'backlog'>): void {
  new Gauge({
    name: 'rm_outbox_backlog_events',
    help: 'Events written and not yet published, as this replica\'s relay has seen them (hand-overs and sweeps)',
    registers: [registry],
    collect() {
      this.set(relay.backlog().events);
    },
  });
  new Gauge({
    name: 'rm_outbox_oldest_event_age_seconds',
    help: 'Age of the oldest event written and not yet published (by its occurred_at); 0 when none waits',
    registers: [registry],
    collect() {
      const { oldestOccurredAt } = relay.backlog();
      this.set(oldestOccurredAt === undefined ? 0 : Math.max(0, (Date.now() - oldestOccurredAt) / 1000));
    },
  });
}

/** A running consumer as JetStream knows it. */
interface Tracked {
  stream: string;
  durable: string;
}

export interface ConsumerObservation {
  /**
   * The metrics of the consumer labelled `consumer` (its definition's durable, without the database),
   * whose JetStream counts are read from `durable` on `stream` until `forget` is called.
   */
  track(consumer: string, stream: string, durable: string): { metrics: ConsumerMetrics; forget(): void };
}

/**
 * The consumers' metrics: counts from the runners as they go, and JetStream's pending counts read at
 * scrape time (one consumer info per consumer, shared by the three gauges; a consumer whose info does
 * not come within SCRAPE_PROBE_TIMEOUT_MS is left out of that scrape).
 */
export function observeConsumers(registry: Registry, jsm: JetStreamManager): ConsumerObservation {
  const running = new Map<string, Tracked>();
  let reading: Promise<Map<string, ConsumerInfo>> | undefined;

  /** One read for the gauges of one scrape, which collect side by side. */
  function infos(): Promise<Map<string, ConsumerInfo>> {
    reading ??= readInfos().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  async function readInfos(): Promise<Map<string, ConsumerInfo>> {
    const read = await Promise.all(
      [...running].map(async ([consumer, { stream, durable }]) => {
        const info = await withDeadline(jsm.consumers.info(stream, durable), SCRAPE_PROBE_TIMEOUT_MS).catch(() => undefined);
        return info === undefined ? [] : [[consumer, info] as const];
      }),
    );
    return new Map(read.flat());
  }

  const fromInfo = (name: string, help: string, count: (info: ConsumerInfo) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['consumer'],
      registers: [registry],
      async collect() {
        const read = await infos();
        this.reset();
        for (const [consumer, info] of read) this.set({ consumer }, count(info));
      },
    });
  fromInfo('rm_consumer_pending_messages', 'Messages not yet delivered to the consumer (num_pending)', (info) => info.num_pending);
  fromInfo('rm_consumer_ack_pending_messages', 'Delivered, not yet acknowledged (num_ack_pending)', (info) => info.num_ack_pending);
  fromInfo('rm_consumer_redelivered_messages', 'Redelivered, not yet acknowledged (num_redelivered)', (info) => info.num_redelivered);

  const labelNames = ['consumer'] as const;
  const handling = new Histogram({
    name: 'rm_consumer_handling_duration_seconds',
    help: 'Time to handle one batch of events (its handlers; the ledger write after it overlaps the next batch)',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const events = new Counter({
    name: 'rm_consumer_events_total',
    help: 'Events received, by outcome: applied, skipped (version already applied, or ignored) or failed (retried or dead-lettered)',
    labelNames: ['consumer', 'outcome'],
    registers: [registry],
  });
  const deadLetters = new Counter({
    name: 'rm_dead_letters_total',
    help: 'Events a consumer gave up on, recorded on the dead-letter stream',
    labelNames,
    registers: [registry],
  });

  return {
    track(consumer, stream, durable) {
      const tracked = { stream, durable };
      running.set(consumer, tracked);
      // present from the start, so that its first dead letter is an increase from 0
      deadLetters.inc({ consumer }, 0);
      return {
        metrics: {
          batchHandled(seconds, outcomes) {
            handling.observe({ consumer }, seconds);
            for (const [outcome, count] of Object.entries(outcomes)) if (count > 0) events.inc({ consumer, outcome }, count);
          },
          batchFailed: (count) => events.inc({ consumer, outcome: 'failed' }, count),
          deadLettered: () => deadLetters.inc({ consumer }),
        },
        forget() {
          if (running.get(consumer) === tracked) running.delete(consumer);
        },
      };
    },
  };
}
