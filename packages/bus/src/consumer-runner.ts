import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { ClosedConnectionError } from '@nats-io/transport-node';
import type { EventEnvelope } from '@rm/contracts';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { declareConsumer, DEFAULT_ACK_WAIT_MS, type ConsumerOptions } from './consumer-declaration.js';
import { declareDeadLetterStream, publishDeadLetter, type DeadLetterRecord } from './dead-letter.js';
import { PermanentEventError } from './errors.js';
import { createEventParser } from './event-validation.js';
import { createTaskPool } from './task-pool.js';

export interface EventContext {
  subject: string;
  /** 1 on the first delivery. */
  deliveryCount: number;
  logger: Logger;
}

/** Applies one event; throw to get it again later, or a PermanentEventError to dead-letter it now. */
export type EventHandler = (event: EventEnvelope, context: EventContext) => Promise<void>;

export interface ConsumerRunnerOptions extends Omit<ConsumerOptions, 'durable' | 'maxDeliver'> {
  js: JetStreamClient;
  /** The consumer's own database: its version ledger lives there. */
  db: Db;
  stream: string;
  durable: string;
  logger: Logger;
  handle: EventHandler;
  /** Attempts before an event is dead-lettered; also the consumer's `max_deliver`. */
  maxDeliver: number;
  /** Redelivery delay after each failed attempt; the last one repeats. */
  nakDelaysMs: number[];
  /** Messages handled at once (default 1, which keeps the stream's order). */
  concurrency?: number;
}

export interface ConsumerRunner {
  /** Declares the consumer and the dead-letter stream, then starts handling messages. */
  start(): Promise<void>;
  /** Stops pulling and waits for the handlers in flight. */
  stop(): Promise<void>;
}

/** Highest version of each entity a consumer has applied: `_id` is `durable|tenant|entity|entity_id`. */
export const CONSUMED_VERSIONS_COLLECTION = 'consumed_versions';

type ConsumedVersion = { _id: string; version: number };

const RECREATE_DELAY_MS = 1000;

/**
 * Runs a durable pull consumer: validates each message, skips versions already applied, calls the
 * handler, records the version, then acks. Failures are retried with delays, and end in the
 * dead-letter stream after `maxDeliver` attempts.
 */
export function createConsumerRunner(options: ConsumerRunnerOptions): ConsumerRunner {
  const { js, db, stream, durable, handle, maxDeliver, nakDelaysMs, concurrency = 1 } = options;
  const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  const logger = options.logger.child({ stream, consumer: durable });
  const ledger = db.collection<ConsumedVersion>(CONSUMED_VERSIONS_COLLECTION);
  const parseEvent = createEventParser();
  const pool = createTaskPool(concurrency);
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  let loop: Promise<void> | undefined;
  let wakeFromPause: (() => void) | undefined;

  async function declare(): Promise<void> {
    const jsm = await js.jetstreamManager();
    await declareDeadLetterStream(jsm);
    const { filterSubjects, ackWaitMs, maxAckPending } = options;
    await declareConsumer(jsm, stream, { durable, filterSubjects, ackWaitMs, maxDeliver, maxAckPending });
  }

  async function subscribe(): Promise<ConsumerMessages> {
    const consumer = await js.consumers.get(stream, durable);
    // pull no more than we can handle: a message waiting in our buffer is already on its ack clock
    const pulled = await consumer.consume({ max_messages: concurrency });
    void watchStatus(pulled);
    return pulled;
  }

  async function watchStatus(pulled: ConsumerMessages): Promise<void> {
    for await (const status of pulled.status()) {
      if (status.type === 'heartbeats_missed' || status.type === 'consumer_deleted' || status.type === 'consumer_not_found') {
        // the pull is broken or the consumer is gone: end this loop, the runner declares and subscribes anew
        logger.warn({ status }, 'consumer interrupted, recreating');
        await pulled.close();
        return;
      }
    }
  }

  async function run(first: ConsumerMessages): Promise<void> {
    let pulled: ConsumerMessages | undefined = first;
    while (!stopping) {
      try {
        pulled ??= await recreate();
        messages = pulled;
        // stop() may have come while we were subscribing
        if (stopping) await pulled.close();
        for await (const msg of pulled) {
          // messages already buffered when stop() came go straight back for another instance
          if (stopping) msg.nak();
          else await pool.run(() => processMessage(msg).catch((err) => logger.error({ err }, 'message not settled')));
        }
      } catch (err) {
        if (err instanceof ClosedConnectionError) {
          // closed under us (shutdown should stop the runner first): nothing left to retry with
          logger.error({ err }, 'nats connection closed, consumer stopped');
          break;
        }
        logger.error({ err }, 'consumer loop failed, retrying');
        await pause(RECREATE_DELAY_MS);
      }
      pulled = undefined;
    }
    await pool.drain();
  }

  async function recreate(): Promise<ConsumerMessages> {
    await declare();
    return subscribe();
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeFromPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async function processMessage(msg: JsMsg): Promise<void> {
    const deliveryCount = msg.info.deliveryCount;
    const log = logger.child({ subject: msg.subject, stream_sequence: msg.info.streamSequence, deliveries: deliveryCount });
    const parsed = parseEvent(msg.string());
    if ('error' in parsed) return deadLetter(msg, parsed.received, parsed.error, log);
    const { event } = parsed;
    const eventLog = log.child({ event_id: event.id, event_type: event.type, entity_id: event.entity_id, version: event.version });
    // the entity is the part of the type before the dot: `employee.updated` → `employee`
    const ledgerId = [durable, event.tenant, event.type.split('.')[0], event.entity_id].join('|');
    try {
      const applied = await ledger.findOne({ _id: ledgerId });
      if (applied && applied.version >= event.version) {
        // a redelivery, a republish beyond the dedup window, or an older event after a newer one
        eventLog.debug({ applied_version: applied.version }, 'event skipped, version already applied');
        msg.ack();
        return;
      }
      await whileWorking(msg, () => handle(event, { subject: msg.subject, deliveryCount, logger: eventLog }));
      await ledger.updateOne({ _id: ledgerId }, { $max: { version: event.version } }, { upsert: true });
      msg.ack();
    } catch (err) {
      if (err instanceof PermanentEventError || deliveryCount >= maxDeliver) {
        return deadLetter(msg, event, err instanceof Error ? err : new Error(String(err)), eventLog);
      }
      const delayMs = nakDelaysMs[Math.min(deliveryCount, nakDelaysMs.length) - 1] ?? 0;
      eventLog.warn({ err, delay_ms: delayMs }, 'event handling failed, will retry');
      // without a delay, a nak is redelivered at once
      msg.nak(delayMs);
    }
  }

  /** Tells the server the message is still being worked on, so a slow handler does not get a twin. */
  async function whileWorking(msg: JsMsg, work: () => Promise<void>): Promise<void> {
    const timer = setInterval(() => msg.working(), ackWaitMs / 2);
    try {
      await work();
    } finally {
      clearInterval(timer);
    }
  }

  async function deadLetter(msg: JsMsg, event: unknown, error: Error, log: Logger): Promise<void> {
    const record: DeadLetterRecord = {
      consumer: durable,
      stream,
      subject: msg.subject,
      stream_sequence: msg.info.streamSequence,
      deliveries: msg.info.deliveryCount,
      error: error.message,
      event,
      recorded_at: new Date().toISOString(),
    };
    try {
      await publishDeadLetter(js, record);
    } catch (err) {
      // leave the message to the server: redelivered if attempts remain, else kept in the stream
      // (the log line below is then the only record)
      log.error({ err, dead_letter: record }, 'dead letter not recorded');
      msg.nak(nakDelaysMs.at(-1));
      return;
    }
    log.error({ err: error, dead_letter: record }, 'event dead-lettered');
    msg.term(error.message);
  }

  return {
    async start() {
      await declare();
      loop = run(await subscribe());
    },
    async stop() {
      stopping = true;
      wakeFromPause?.();
      await messages?.close();
      await loop;
    },
  };
}
