import type { JetStreamClient } from '@nats-io/jetstream';
import type { OutboxSource, PendingEvents } from '@rm/contracts';
import type { Logger } from 'pino';
import { createTaskPool } from './task-pool.js';

export interface OutboxRelayOptions {
  /** Where the events wait: @rm/store's createOutboxStore. */
  outbox: OutboxSource;
  js: Pick<JetStreamClient, 'publish'>;
  logger: Logger;
  /** Pause between sweeps when nothing wakes the relay (default 1 s). */
  sweepIntervalMs?: number;
  /** Wait for each PubAck (default 5 s); a timed-out publish is retried with the same msgID. */
  publishTimeoutMs?: number;
  /** Documents relayed at once (default 8); the events of one document always go one by one. */
  concurrency?: number;
}

export interface OutboxRelay {
  start(): void;
  /** Sweeps at once (after the running sweep, if any); call it after a write. */
  wake(): void;
  /** Finishes the documents in flight and stops sweeping. */
  stop(): Promise<void>;
}

/**
 * Publishes the events that writes left in their documents' outbox, in order, and clears each one
 * after its PubAck. A crash at any point loses nothing: an event leaves the document only after it
 * is stored in JetStream, and publishing it again carries the same msgID (deduplicated within the
 * stream's duplicate window; consumers check versions beyond it).
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { outbox, js, logger, sweepIntervalMs = 1000, publishTimeoutMs = 5000, concurrency = 8 } = options;
  let started = false;
  let stopped = false;
  let sweeping: Promise<void> | undefined;
  let sweepAgain = false;
  let timer: NodeJS.Timeout | undefined;
  let recovered = false;

  function wake(): void {
    if (!started || stopped) return;
    if (sweeping) {
      sweepAgain = true;
      return;
    }
    clearTimeout(timer);
    sweeping = sweepUntilQuiet();
  }

  async function sweepUntilQuiet(): Promise<void> {
    if (!recovered) recovered = await recover();
    do {
      sweepAgain = false;
      await sweep();
    } while (sweepAgain && !stopped);
    sweeping = undefined;
    if (!stopped) timer = setTimeout(wake, sweepIntervalMs);
  }

  async function recover(): Promise<boolean> {
    try {
      await outbox.recover();
      return true;
    } catch (err) {
      logger.error({ err }, 'outbox recovery failed, will retry');
      return false;
    }
  }

  async function sweep(): Promise<void> {
    const pool = createTaskPool(concurrency);
    try {
      for await (const pending of outbox.pending()) {
        if (stopped) break;
        await pool.run(() => relay(pending));
      }
    } catch (err) {
      logger.error({ err }, 'outbox sweep failed');
    } finally {
      await pool.drain();
    }
  }

  async function relay(pending: PendingEvents): Promise<void> {
    const log = logger.child({ collection: pending.collection, document_id: pending.documentId });
    try {
      for (const entry of pending.events) {
        const { subject, ...envelope } = entry;
        try {
          await js.publish(subject, JSON.stringify(envelope), { msgID: entry.id, timeout: publishTimeoutMs });
        } catch (err) {
          // stop this document: its later events must not go out before this one
          log.warn({ err, event_id: entry.id, subject }, 'outbox publish failed, will retry');
          return;
        }
        await outbox.markPublished(pending, entry.id);
      }
    } catch (err) {
      log.error({ err }, 'outbox relay failed');
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      wake();
    },
    wake,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await sweeping;
    },
  };
}
