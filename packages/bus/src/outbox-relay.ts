import type { JetStreamClient } from '@nats-io/jetstream';
import type { Tracer } from '@opentelemetry/api';
import type { OutboxEntry, OutboxSource, PendingEvents, PublishedEvents } from '@rm/contracts';
import type { Logger } from 'pino';
import { createBacklogView, documentKey, type OutboxBacklog } from './outbox-backlog.js';
import { publishEvent } from './event-publishing.js';
import { defaultTracer } from './message-tracing.js';
import { createSignal } from './signal.js';

export interface OutboxRelayOptions {
  /** Where the events wait, and who hands over each write's events: @rm/store's `store.outbox`. */
  outbox: OutboxSource;
  js: Pick<JetStreamClient, 'publish'>;
  logger: Logger;
  /** Publishes awaiting their PubAck at once, over all documents (default 256). */
  maxInFlight?: number;
  /** Wait for each PubAck (default 5 s); a publish that timed out is retried with the same msgID. */
  publishTimeoutMs?: number;
  /** Pause between safety-net sweeps of the database (default 30 s). */
  sweepIntervalMs?: number;
  /** First wait before sweeping again after a failed publish or sweep; it doubles up to sweepIntervalMs (default 1 s). */
  retryDelayMs?: number;
  /** Events held in memory before a sweep waits for them to go out (default 20,000). */
  maxBacklog?: number;
  /** Makes a `publish <subject>` span per publish, in the trace of the write that raised the event (default: the API's global tracer). */
  tracer?: Tracer;
}

export interface OutboxRelay {
  /** Subscribes to the writes' hand-over and sweeps once for what earlier runs left. */
  start(): void;
  /** Stops taking events, lets the publishes in flight finish and clears what they published. */
  stop(): Promise<void>;
  /** What waits to be published, as this relay has seen it (no database read: a metric may call it on every scrape). */
  backlog(): OutboxBacklog;
}

interface DocumentQueue {
  pending: PendingEvents;
  /** Not yet published, oldest first. */
  events: OutboxEntry[];
  /** Publishing now, or waiting for a slot in `ready`. */
  scheduled: boolean;
}

/**
 * Publishes the events that writes left in their documents' outbox and clears each after its PubAck.
 *
 * Each committed write hands its document's waiting events over at once (no read); many documents
 * publish side by side, each document's events one after another, so a document's events reach the
 * stream in version order. Published events are cleared in batches, each batch while the next one
 * collects. A periodic sweep of the database is the safety net: it finds what a crash or a failed
 * publish left. While publishing fails (NATS away), hand-overs stay in their documents, so memory does
 * not grow with the writes; sweeps retry after retryDelayMs, twice as late after each round that fails
 * again. Nothing is lost at any point: an event leaves its document only after JetStream has stored
 * it, and one published again carries the same msgID (deduplicated within the stream's duplicate
 * window; consumers check versions beyond it).
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { outbox, js, logger, tracer = defaultTracer() } = options;
  const { maxInFlight = 256, publishTimeoutMs = 5_000, sweepIntervalMs = 30_000, retryDelayMs = 1_000, maxBacklog = 20_000 } = options;
  const documents = new Map<string, DocumentQueue>();
  /** Ids of events queued, publishing, or published and not yet cleared. */
  const known = new Set<string>();
  /** Ids just cleared, so that a late hand-over or a sweep's older read does not publish them again. */
  const cleared = new Set<string>();
  const clearedMemory = 2 * maxBacklog;
  const ready: DocumentQueue[] = [];
  const published = new Map<string, PublishedEvents>();
  let inFlight = 0;
  let started = false;
  let stopped = false;
  let unsubscribe: (() => void) | undefined;
  let clearing: Promise<void> | undefined;
  let sweeping: Promise<void> | undefined;
  /** A sweep was asked for while one ran: it runs again right after. */
  let sweepAgain = false;
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweepDueAt = Number.POSITIVE_INFINITY;
  let nextRetryMs = retryDelayMs;
  /** Since a publish failed and until one succeeds: hand-overs stay in their documents for the retry sweep. */
  let failing = false;
  const backlogShrank = createSignal();
  const idle = new Set<() => void>();
  const waiting = createBacklogView(maxBacklog);
  const isCleared = (eventId: string) => cleared.has(eventId);

  function enqueue(pending: PendingEvents): void {
    if (stopped) return;
    const key = documentKey(pending);
    const queue = documents.get(key) ?? { pending, events: [], scheduled: false };
    documents.set(key, queue);
    for (const event of pending.events) {
      if (known.has(event.id) || cleared.has(event.id)) continue;
      known.add(event.id);
      queue.events.push(event);
    }
    if (queue.scheduled) return;
    if (queue.events.length === 0) {
      documents.delete(key);
      return;
    }
    queue.scheduled = true;
    ready.push(queue);
    pump();
  }

  function pump(): void {
    while (inFlight < maxInFlight && ready.length > 0 && !stopped) {
      const queue = ready.shift() as DocumentQueue;
      inFlight += 1;
      void publishDocument(queue).finally(() => {
        inFlight -= 1;
        if (queue.events.length > 0 && !stopped) ready.push(queue);
        else {
          queue.scheduled = false;
          documents.delete(documentKey(queue.pending));
        }
        pump();
        if (inFlight === 0) for (const resolve of idle) resolve();
      });
    }
  }

  async function publishDocument(queue: DocumentQueue): Promise<void> {
    while (queue.events.length > 0 && !stopped) {
      const event = queue.events[0] as OutboxEntry;
      try {
        await publishEvent(js, event, { publishTimeoutMs, tracer });
      } catch (err) {
        // stop this document: its later events must not go out before this one; a sweep brings it back
        forget(queue.events.map((waiting) => waiting.id));
        queue.events = [];
        publishFailed(err, queue.pending);
        return;
      }
      queue.events.shift();
      if (failing) {
        failing = false;
        nextRetryMs = retryDelayMs;
        logger.info('outbox publishing again');
      }
      markPublished(queue.pending, event.id);
    }
  }

  function markPublished(pending: PendingEvents, eventId: string): void {
    const key = documentKey(pending);
    const entry = published.get(key) ?? { collection: pending.collection, documentId: pending.documentId, eventIds: [] };
    entry.eventIds.push(eventId);
    published.set(key, entry);
    clearing ??= clearPublished().finally(() => {
      clearing = undefined;
    });
  }

  /** Clears what was published, batch after batch: a batch collects while the one before is cleared. */
  async function clearPublished(): Promise<void> {
    while (published.size > 0) {
      const batch = [...published.values()];
      published.clear();
      const eventIds = batch.flatMap((entry) => entry.eventIds);
      try {
        await outbox.clear(batch);
        waiting.cleared(batch);
        for (const id of eventIds) remember(id);
      } catch (err) {
        // still waiting in their documents: the next sweep publishes them again (deduplicated) and clears them
        logger.error({ err, documents: batch.length }, 'outbox clearing failed, the next sweep retries');
        scheduleSweep(retryDelayMs);
      }
      forget(eventIds);
    }
  }

  function remember(eventId: string): void {
    if (cleared.size >= clearedMemory) cleared.delete(cleared.values().next().value as string);
    cleared.add(eventId);
  }

  /** Events no longer held (cleared, or left for a sweep): room in the backlog. */
  function forget(eventIds: readonly string[]): void {
    for (const id of eventIds) known.delete(id);
    backlogShrank.notify();
  }

  /** The first failure of a run of them is logged; a sweep retries, later after each round that fails again. */
  function publishFailed(err: unknown, pending: PendingEvents): void {
    if (!failing) {
      logger.warn({ err, collection: pending.collection, document_id: pending.documentId, retry_in_ms: nextRetryMs }, 'outbox publish failed, will retry');
    }
    failing = true;
    scheduleSweep(nextRetryMs);
  }

  /** Sweeps after `delayMs`, unless a sweep is already due sooner. */
  function scheduleSweep(delayMs: number): void {
    if (stopped) return;
    const dueAt = Date.now() + delayMs;
    if (dueAt >= sweepDueAt) return;
    clearTimeout(sweepTimer);
    sweepDueAt = dueAt;
    sweepTimer = setTimeout(() => {
      sweepDueAt = Number.POSITIVE_INFINITY;
      void sweep();
    }, delayMs);
  }

  function sweep(): Promise<void> {
    if (sweeping !== undefined) {
      sweepAgain = true;
      return sweeping;
    }
    sweeping = sweepOnce().then((read) => {
      sweeping = undefined;
      if (!read || failing) {
        scheduleSweep(nextRetryMs);
        nextRetryMs = Math.min(nextRetryMs * 2, sweepIntervalMs);
      } else nextRetryMs = retryDelayMs;
      scheduleSweep(sweepAgain ? 0 : sweepIntervalMs);
      sweepAgain = false;
    });
    return sweeping;
  }

  /** Hands every waiting document to the queues; false when the database could not be read. */
  async function sweepOnce(): Promise<boolean> {
    try {
      waiting.sweepStarted();
      for await (const pending of outbox.pending()) {
        if (stopped) return true;
        waiting.seen(pending, isCleared);
        enqueue(pending);
        while (known.size >= maxBacklog && !stopped) await backlogShrank.wait();
      }
      waiting.sweepCompleted();
      return true;
    } catch (err) {
      logger.error({ err, retry_in_ms: nextRetryMs }, 'outbox sweep failed, will retry');
      return false;
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      unsubscribe = outbox.onCommit((committed) => {
        waiting.seen(committed, isCleared);
        if (!failing) enqueue(committed);
      });
      void sweep();
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      clearTimeout(sweepTimer);
      backlogShrank.notify();
      await sweeping;
      if (inFlight > 0) await new Promise<void>((resolve) => idle.add(resolve));
      await clearing;
    },
    backlog: () => waiting.backlog(),
  };
}
