import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { ClosedConnectionError } from '@nats-io/transport-node';
import type { Tracer } from '@opentelemetry/api';
import type { AppliedVersions, EventValidator } from '@rm/contracts';
import type { Logger } from 'pino';
import { declareConsumer, DEFAULT_ACK_WAIT_MS, type ConsumerOptions } from './consumer-declaration.js';
import type { ConsumerMetrics } from './consumer-metrics.js';
import { declareDeadLetterStream, publishDeadLetter, type DeadLetterRecord } from './dead-letter.js';
import { defaultTracer } from './message-tracing.js';
import { handleBatch, recordBatch, type BatchProcessing, type EventHandling, type HandledBatch, type IgnoredEvents, type Settle } from './event-batch.js';
import { createSignal, pause } from './signal.js';

/** A runner's options: how it applies events (EventHandling), and the rest. */
export type ConsumerRunnerOptions = EventHandling & ConsumerRunnerSettings;

export interface ConsumerRunnerSettings extends Omit<ConsumerOptions, 'durable' | 'maxDeliver'> {
  js: JetStreamClient;
  stream: string;
  durable: string;
  logger: Logger;
  /** The consumer's ledger of applied versions (@rm/store's `store.appliedVersions(durable)`). */
  applied: AppliedVersions;
  /** Events acknowledged unhandled, without the ledger (see IgnoredEvents). */
  ignores?: IgnoredEvents;
  /** Checks each received event against its contract (@rm/contracts' createEventValidator). */
  validate: EventValidator;
  /** Whether an error means the database cannot be reached (@rm/store's isOutage). */
  isOutage: (error: unknown) => boolean;
  /** Attempts before an event is dead-lettered; also the consumer's `max_deliver`. */
  maxDeliver: number;
  /** Redelivery delay after each failed attempt; the last one repeats. */
  nakDelaysMs: number[];
  /** Entities handled side by side within a batch, each entity's events in order (default 16). */
  concurrency?: number;
  /** Most messages in one batch, and in the client's pull buffer (default 500). */
  batchSize?: number;
  /** Waits between attempts to reach the database during an outage; the last one repeats. */
  outageRetryDelaysMs?: number[];
  /** Makes a `consume <subject>` span per message, child of the span that published it (default: the API's global tracer). */
  tracer?: Tracer;
  /** Told of each batch, each event's outcome and each dead letter. */
  metrics?: ConsumerMetrics;
}

export interface ConsumerRunner {
  /** Declares the consumer and the dead-letter stream, then starts handling messages. */
  start(): Promise<void>;
  /** Stops pulling, finishes the batch in hand, and hands what it still holds back to the server. */
  stop(): Promise<void>;
  /** Rejects while the runner waits for its database to come back (a readiness check). */
  readiness(): Promise<void>;
}

const RECREATE_DELAY_MS = 1000;
const DEFAULT_OUTAGE_RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];

/** Thrown inside a batch when shutdown cuts an outage wait short: its messages go back unsettled. */
class StoppingError extends Error {}

/**
 * Runs a durable pull consumer in batches: messages pulled while a batch is handled form the next one,
 * so one event alone goes through at once, and a backlog goes through in batches of `batchSize` (see
 * handleBatch). During a database outage the runner stops pulling, keeps the messages it holds
 * (telling the server it is still working on them, so none is redelivered or dead-lettered), turns
 * unready, and goes on when the database answers again.
 */
export function createConsumerRunner(options: ConsumerRunnerOptions): ConsumerRunner {
  const { js, stream, durable, applied, validate, isOutage, maxDeliver, nakDelaysMs, metrics } = options;
  const { concurrency = 16, batchSize = 500, outageRetryDelaysMs = DEFAULT_OUTAGE_RETRY_DELAYS_MS, tracer = defaultTracer() } = options;
  const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  const logger = options.logger.child({ stream, consumer: durable });
  /** Messages received and not yet in a batch, oldest first. */
  const queue: JsMsg[] = [];
  /** The batch being handled, and the one whose ledger write and acks are still under way. */
  let batch: readonly JsMsg[] = [];
  let recording: { messages: readonly JsMsg[]; handled: HandledBatch; done: Promise<void> } | undefined;
  let messages: ConsumerMessages | undefined;
  let stopping = false;
  let inOutage = false;
  const queued = createSignal();
  const room = createSignal();
  const recovered = createSignal();
  const stopped = createSignal();
  let loops: Promise<unknown> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  async function declare(): Promise<void> {
    const jsm = await js.jetstreamManager();
    await declareDeadLetterStream(jsm);
    const { filterSubjects, maxAckPending } = options;
    await declareConsumer(jsm, stream, { durable, filterSubjects, ackWaitMs, maxDeliver, maxAckPending });
  }

  async function subscribe(): Promise<ConsumerMessages> {
    const consumer = await js.consumers.get(stream, durable);
    // pull no more than a batch ahead: a message in our buffer is already on its ack clock
    const pulled = await consumer.consume({ max_messages: batchSize });
    void watchStatus(pulled);
    return pulled;
  }

  async function watchStatus(pulled: ConsumerMessages): Promise<void> {
    for await (const status of pulled.status()) {
      if (status.type === 'heartbeats_missed' || status.type === 'consumer_deleted' || status.type === 'consumer_not_found') {
        // the pull is broken or the consumer is gone: end this pull, the runner declares and subscribes anew
        logger.warn({ status }, 'consumer interrupted, recreating');
        pulled.stop();
        return;
      }
    }
  }

  /** Pulls messages into the queue, a batch ahead of the handling; re-subscribes when a pull ends. */
  async function pullLoop(first: ConsumerMessages): Promise<void> {
    let pulled: ConsumerMessages | undefined = first;
    while (!stopping) {
      if (inOutage) {
        await recovered.wait();
        continue;
      }
      try {
        pulled ??= await (async () => {
          await declare();
          return subscribe();
        })();
        messages = pulled;
        if (stopping || inOutage) pulled.stop();
        // after stop(), the iterator still yields what was already pulled: it joins the queue, where
        // the heartbeat keeps it, instead of timing out in the client's buffer
        for await (const msg of pulled) {
          queue.push(msg);
          queued.notify();
          while (queue.length >= batchSize && !stopping && !inOutage) await room.wait();
        }
      } catch (err) {
        if (err instanceof ClosedConnectionError) {
          logger.error({ err }, 'nats connection closed, consumer stopped');
          return;
        }
        logger.error({ err }, 'consumer pull failed, retrying');
      }
      messages = undefined;
      pulled = undefined;
      if (!stopping && !inOutage) await pause(RECREATE_DELAY_MS, stopped);
    }
  }

  /** Messages acked, nak'd or terminated: a failed batch settles only the others. */
  const settled = new WeakSet<JsMsg>();
  const settle: Settle & { term(msg: JsMsg, reason: string): void } = {
    ack(msg) {
      settled.add(msg);
      msg.ack();
    },
    nak(msg, delayMs) {
      settled.add(msg);
      msg.nak(delayMs);
    },
    term(msg, reason) {
      settled.add(msg);
      msg.term(reason);
    },
  };
  const handling = (options.handleBatch === undefined ? { handle: options.handle } : { handleBatch: options.handleBatch }) as EventHandling;
  const processing: BatchProcessing = {
    ...handling,
    ...(options.ignores === undefined ? {} : { ignores: options.ignores }),
    settle, applied, validate, isOutage, maxDeliver, nakDelaysMs, concurrency, logger, tracer, deadLetter, untilAvailable, outage,
  };

  /**
   * Handles batch after batch. A batch's ledger write runs while the next batch is handled (that
   * batch counts the versions in flight as applied), and one write at a time, in batch order.
   */
  async function handleLoop(): Promise<void> {
    while (!stopping) {
      if (queue.length === 0) {
        // stop() wakes this wait too
        await queued.wait();
        continue;
      }
      batch = queue.splice(0, batchSize);
      room.notify();
      const startedAt = performance.now();
      const handled = await settleOnFailure(batch, () => handleBatch(batch, processing, recording?.handled.raised));
      if (handled !== undefined) metrics?.batchHandled((performance.now() - startedAt) / 1000, handled.outcomes);
      await recording?.done;
      if (handled !== undefined) {
        const messages = batch;
        const done = settleOnFailure(messages, () => recordBatch(handled, processing)).then(() => {
          // recorded and acked: no longer held, and no longer needed as versions in flight
          if (recording?.handled === handled) recording = undefined;
        });
        recording = { messages, handled, done };
      }
      batch = [];
    }
    await recording?.done;
  }

  /**
   * Runs a step of a batch. If it fails, the messages it has not settled come back, or, on their last
   * attempt, are dead-lettered: a batch that keeps failing (a ledger that cannot be read) must not end
   * in JetStream giving up on its events without a record.
   */
  async function settleOnFailure<T>(messages: readonly JsMsg[], step: () => Promise<T>): Promise<T | undefined> {
    try {
      return await step();
    } catch (err) {
      const unsettled = messages.filter((msg) => !settled.has(msg));
      if (err instanceof StoppingError) {
        for (const msg of unsettled) settle.nak(msg, 0);
        return undefined;
      }
      logger.error({ err, messages: unsettled.length }, 'batch failed, its messages come back');
      metrics?.batchFailed(unsettled.length);
      const error = err instanceof Error ? err : new Error(String(err));
      for (const msg of unsettled) {
        if (msg.info.deliveryCount >= maxDeliver) await deadLetter(msg, msg.string(), error, logger);
        else settle.nak(msg, nakDelaysMs.at(-1));
      }
      return undefined;
    }
  }

  /** Keeps every message held (queued, in a batch, or waiting for its ledger write) from being redelivered. */
  function keepHeldMessages(): NodeJS.Timeout {
    return setInterval(() => {
      for (const msg of [...(recording?.messages ?? []), ...batch, ...queue]) msg.working();
    }, ackWaitMs / 3);
  }

  async function untilAvailable<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const result = await call();
        leaveOutage();
        return result;
      } catch (err) {
        if (!isOutage(err)) throw err;
        enterOutage(err);
        await waitBeforeRetry(attempt);
      }
    }
  }

  /** Called by a batch whose handlers met an outage: waits until the database answers again. */
  async function outage(): Promise<void> {
    enterOutage(undefined);
    for (let attempt = 0; inOutage; attempt += 1) {
      await waitBeforeRetry(attempt);
      try {
        await applied.ping();
        leaveOutage();
      } catch (err) {
        if (!isOutage(err)) throw err;
      }
    }
  }

  async function waitBeforeRetry(attempt: number): Promise<void> {
    await pause(outageRetryDelaysMs[Math.min(attempt, outageRetryDelaysMs.length - 1)] ?? 1000, stopped);
    if (stopping) throw new StoppingError('stopping during a database outage');
  }

  function enterOutage(err: unknown): void {
    if (inOutage) return;
    inOutage = true;
    logger.warn({ err }, 'database unreachable: consumer pauses, holding its messages');
    messages?.stop();
    room.notify();
  }

  function leaveOutage(): void {
    if (!inOutage) return;
    inOutage = false;
    logger.info('database reachable again: consumer goes on');
    recovered.notify();
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
      settle.nak(msg, nakDelaysMs.at(-1));
      return;
    }
    log.error({ err: error, dead_letter: record }, 'event dead-lettered');
    metrics?.deadLettered();
    settle.term(msg, error.message);
  }

  return {
    async start() {
      await declare();
      const first = await subscribe();
      heartbeat = keepHeldMessages();
      loops = Promise.all([pullLoop(first), handleLoop()]);
    },
    async stop() {
      stopping = true;
      stopped.notify();
      queued.notify();
      recovered.notify();
      room.notify();
      messages?.stop();
      await loops;
      clearInterval(heartbeat);
      // what is still queued goes straight back, for another instance
      for (const msg of queue.splice(0)) settle.nak(msg);
    },
    async readiness() {
      if (inOutage) throw new Error(`consumer ${durable} waits for its database`);
    },
  };
}
