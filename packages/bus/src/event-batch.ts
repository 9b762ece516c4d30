import type { JsMsg } from '@nats-io/jetstream';
import { context, type Tracer } from '@opentelemetry/api';
import { entityOfType, entityRefKey, type AppliedVersions, type EntityRef, type EntityVersion, type EventEnvelope, type EventValidator } from '@rm/contracts';
import type { Logger } from 'pino';
import type { EventOutcome } from './consumer-metrics.js';
import { PermanentEventError } from './errors.js';
import { parseEvent } from './event-parsing.js';
import { markFailed, startBatchTrace, startConsumeSpan, type MessageTrace } from './message-tracing.js';
import { createTaskPool } from './task-pool.js';

export interface EventContext {
  subject: string;
  /** 1 on the first delivery. */
  deliveryCount: number;
  logger: Logger;
}

/** Applies one event; throw to get it again later, or a PermanentEventError to dead-letter it now. */
export type EventHandler = (event: EventEnvelope, context: EventContext) => Promise<void>;

/**
 * Applies a batch's events at once, in stream order, each newer than what was applied of its entity;
 * throw to get them all again later (a PermanentEventError dead-letters them all). For a consumer
 * whose work is cheaper by the batch, or that must see events across entities in stream order.
 * It may hand back a BatchCompletion: the next batch is then handled while that work goes on.
 */
export type BatchEventHandler = (
  events: readonly { event: EventEnvelope; subject: string }[],
  logger: Logger,
) => Promise<void | BatchCompletion>;

/**
 * The rest of a batch's work, still under way when its handler returns (writes of what the handler
 * decided, say): the batch's events are acknowledged once it is done. If it fails with a database
 * outage, the batch is handled again once the database answers, as a handler's outage would be; any
 * other failure sends the batch's events back. A handler that hands one back keeps its later batches
 * from building on a failed one (their completions fail too), and keeps its own versions (no ledger:
 * the runner would count the versions of a batch whose work then failed as applied for the next one).
 */
export interface BatchCompletion {
  completed: Promise<void>;
}

/** How a consumer applies events: one at a time per entity (entities side by side), or by the batch. */
export type EventHandling = { handle: EventHandler; handleBatch?: never } | { handleBatch: BatchEventHandler; handle?: never };

/** Settles messages, remembering which: what a failed batch still holds is known (see the runner). */
export interface Settle {
  ack(msg: JsMsg): void;
  nak(msg: JsMsg, delayMs?: number): void;
}

/**
 * Events the handler would do nothing with whatever it applied before, so neither late nor early (a first
 * version that names nothing the consumer keeps): acknowledged as skipped, with no ledger read or write.
 */
export type IgnoredEvents = (event: EventEnvelope) => boolean;

export type BatchProcessing = EventHandling & {
  ignores?: IgnoredEvents;
  settle: Settle;
  applied: AppliedVersions;
  validate: EventValidator;
  isOutage: (error: unknown) => boolean;
  maxDeliver: number;
  nakDelaysMs: readonly number[];
  /** Entities handled side by side. */
  concurrency: number;
  logger: Logger;
  /** Makes the `consume <subject>` spans. */
  tracer: Tracer;
  deadLetter(msg: JsMsg, received: unknown, error: Error, log: Logger): Promise<void>;
  /** Runs a database call until it answers, waiting out an outage; throws only what is not one. */
  untilAvailable<T>(call: () => Promise<T>): Promise<T>;
  /** Waits while the database is out; resolves once it answers again. */
  outage(): Promise<void>;
};

interface Entry {
  msg: JsMsg;
  event: EventEnvelope;
  ref: EntityRef;
  /** Made when first read (eventLogger): most events log nothing. */
  readonly log: Logger;
  trace: MessageTrace;
  /** What became of it: acked once applied or skipped; the others were settled by nak or term. */
  outcome?: 'applied' | 'skipped' | 'retried' | 'dead';
}

/** A handled batch, to be recorded in the ledger and then acknowledged. */
export interface HandledBatch {
  /** The versions the batch applied, by entity key (entityRefKey). */
  raised: Map<string, EntityVersion>;
  /** How many of its events ended in each outcome. */
  outcomes: Record<EventOutcome, number>;
  /** Acks the messages whose events were applied or skipped (the others were settled already). */
  acknowledge(): void;
  /** Waits for the work the handler left running (BatchCompletion); rejects when it failed for good. */
  completion?(): Promise<void>;
}

/**
 * Handles one batch of messages: one ledger read, then the events of each entity in stream order
 * (entities side by side). An event whose version is not newer than the one applied is skipped, so
 * that no older state ever lands on a newer one. A failure that is a database outage is not the
 * event's fault: it costs no delivery attempt, the batch waits and goes on from there.
 *
 * `inFlight` holds the versions of the previous batch, whose ledger write may still be running: they
 * count as applied, so that the next batch is handled while that write goes on.
 */
export async function handleBatch(
  messages: readonly JsMsg[],
  processing: BatchProcessing,
  inFlight: ReadonlyMap<string, EntityVersion> = new Map(),
): Promise<HandledBatch> {
  // a span per message, in the trace it was published in, ended once the whole batch is handled
  const traces = new Map(messages.map((msg) => [msg, startConsumeSpan(processing.tracer, msg)]));
  try {
    return await handleMessages(messages, traces, processing, inFlight);
  } catch (err) {
    for (const { span } of traces.values()) markFailed(span, err);
    throw err;
  } finally {
    for (const { span } of traces.values()) span.end();
  }
}

async function handleMessages(
  messages: readonly JsMsg[],
  traces: ReadonlyMap<JsMsg, MessageTrace>,
  processing: BatchProcessing,
  inFlight: ReadonlyMap<string, EntityVersion>,
): Promise<HandledBatch> {
  const { applied, untilAvailable, concurrency } = processing;
  const entries: Entry[] = [];
  let invalid = 0;
  for (const msg of messages) {
    const parsed = parseEvent(msg.string(), processing.validate, msg.subject);
    const trace = traces.get(msg) as MessageTrace;
    if ('error' in parsed) {
      markFailed(trace.span, parsed.error);
      await processing.deadLetter(msg, parsed.received, parsed.error, processing.logger.child(messageFields(msg)));
      invalid += 1;
      continue;
    }
    const { event } = parsed;
    const ref = { tenant: event.tenant, entity: entityOfType(event.type), entityId: event.entity_id };
    const logger = eventLogger(processing.logger, msg, event);
    entries.push({
      msg,
      event,
      ref,
      trace,
      get log() {
        return logger();
      },
      ...(processing.ignores?.(event) === true ? { outcome: 'skipped' as const } : {}),
    });
  }
  // the ignored ones are settled as skipped already: the ledger and the handler see the rest
  const considered = entries.filter((entry) => entry.outcome === undefined);
  const versions = await untilAvailable(() => applied.read(considered.map((entry) => entry.ref)));
  for (const [key, { version }] of inFlight) versions.set(key, Math.max(version, versions.get(key) ?? 0));
  const raised = new Map<string, EntityVersion>();

  /** Settles an event its handler failed on: retried later, or dead-lettered. */
  async function failed(entry: Entry, err: unknown): Promise<Entry['outcome']> {
    const deliveryCount = entry.msg.info.deliveryCount;
    markFailed(entry.trace.span, err);
    if (err instanceof PermanentEventError || deliveryCount >= processing.maxDeliver) {
      await processing.deadLetter(entry.msg, entry.event, err instanceof Error ? err : new Error(String(err)), entry.log);
      return 'dead';
    }
    const { nakDelaysMs } = processing;
    const delayMs = nakDelaysMs[Math.min(deliveryCount, nakDelaysMs.length) - 1] ?? 0;
    entry.log.warn({ err, delay_ms: delayMs }, 'event handling failed, will retry');
    // without a delay, a nak is redelivered at once; the entity's later events go on: each carries
    // the whole state, and this one is skipped when it comes back older than what was applied
    processing.settle.nak(entry.msg, delayMs);
    return 'retried';
  }

  /** Whether the entry is newer than what was applied of its entity; an older one is marked skipped. */
  function isNewer(entry: Entry): boolean {
    const appliedVersion = versions.get(entityRefKey(entry.ref)) ?? 0;
    if (entry.event.version > appliedVersion) return true;
    // a redelivery, a republish beyond the dedup window, or an older event after a newer one
    if (processing.logger.isLevelEnabled('debug')) entry.log.debug({ applied_version: appliedVersion }, 'event skipped, version already applied');
    entry.outcome = 'skipped';
    return false;
  }

  function markApplied(entry: Entry): void {
    const key = entityRefKey(entry.ref);
    versions.set(key, Math.max(entry.event.version, versions.get(key) ?? 0));
    raised.set(key, { ...entry.ref, version: versions.get(key) as number });
    entry.outcome = 'applied';
  }

  /** Handles an entity's events in order; returns those an outage interrupted, from the first one on. */
  async function handleEntity(group: Entry[], handle: EventHandler): Promise<Entry[]> {
    for (const [index, entry] of group.entries()) {
      if (!isNewer(entry)) continue;
      try {
        const eventContext: EventContext = {
          subject: entry.msg.subject,
          deliveryCount: entry.msg.info.deliveryCount,
          get logger() {
            return entry.log;
          },
        };
        await context.with(entry.trace.context, () => handle(entry.event, eventContext));
      } catch (err) {
        if (processing.isOutage(err)) return group.slice(index);
        entry.outcome = await failed(entry, err);
        continue;
      }
      markApplied(entry);
    }
    return [];
  }

  const { handle, handleBatch } = processing;
  if (handleBatch !== undefined) {
    // every event newer than the one before it of its entity, in stream order, in one call
    const newer = considered.filter((entry) => {
      if (!isNewer(entry)) return false;
      versions.set(entityRefKey(entry.ref), entry.event.version);
      return true;
    });
    const batchTrace = startBatchTrace(processing.tracer, newer.map((entry) => entry.trace));
    const batch = newer.map(({ event, msg }) => ({ event, subject: msg.subject }));
    const handleAll = () => handleBatch(batch, processing.logger);
    let completion: (() => Promise<void>) | undefined;
    try {
      for (;;) {
        try {
          const handed = newer.length > 0 ? await context.with(batchTrace.context, handleAll) : undefined;
          if (handed !== undefined) completion = laterCompletion(handed, handleAll, processing);
          for (const entry of newer) markApplied(entry);
          break;
        } catch (err) {
          if (processing.isOutage(err)) {
            await processing.outage();
            continue;
          }
          for (const entry of newer) entry.outcome = await failed(entry, err);
          break;
        }
      }
    } finally {
      batchTrace.end();
    }
    return { ...acknowledgement(), ...(completion === undefined ? {} : { completion }) };
  }

  if (handle === undefined) throw new TypeError('a consumer needs handle or handleBatch');
  let waiting = [...Map.groupBy(considered, (entry) => entityRefKey(entry.ref)).values()];
  while (waiting.length > 0) {
    const interrupted: Entry[][] = [];
    // an unexpected failure of one entity fails the batch, but only once every entity has ended
    const failures: unknown[] = [];
    const pool = createTaskPool(concurrency);
    for (const group of waiting) {
      await pool.run(async () => {
        try {
          const rest = await handleEntity(group, handle);
          if (rest.length > 0) interrupted.push(rest);
        } catch (err) {
          failures.push(err);
        }
      });
    }
    await pool.drain();
    if (failures.length > 0) throw failures[0];
    if (interrupted.length > 0) await processing.outage();
    waiting = interrupted;
  }

  return acknowledgement();

  function acknowledgement(): HandledBatch {
    const outcomes = { applied: 0, skipped: 0, failed: invalid };
    for (const { outcome } of entries) {
      if (outcome === 'applied' || outcome === 'skipped') outcomes[outcome] += 1;
      else outcomes.failed += 1;
    }
    return {
      raised,
      outcomes,
      acknowledge() {
        for (const entry of entries) {
          if (entry.outcome === 'applied' || entry.outcome === 'skipped') processing.settle.ack(entry.msg);
        }
      },
    };
  }
}

/**
 * Waits for a batch's BatchCompletion; after an outage, once the database answers, handles the batch
 * again (the handler built nothing on the failed work) until its work is done or fails otherwise.
 */
function laterCompletion(
  first: BatchCompletion,
  handleAgain: () => Promise<void | BatchCompletion>,
  processing: Pick<BatchProcessing, 'isOutage' | 'outage'>,
): () => Promise<void> {
  // caught at once: the runner asks for it only after the batch before it is acknowledged
  const firstFailure = first.completed.then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  return async () => {
    let failure = await firstFailure;
    while (failure !== undefined) {
      if (!processing.isOutage(failure.error)) throw failure.error;
      await processing.outage();
      try {
        await (await handleAgain())?.completed;
        failure = undefined;
      } catch (error) {
        failure = { error };
      }
    }
  };
}

/**
 * Waits for the handler's work left running, records a handled batch's versions (one ledger write,
 * waiting out an outage), then acks its messages.
 */
export async function recordBatch(handled: HandledBatch, processing: Pick<BatchProcessing, 'applied' | 'untilAvailable'>): Promise<void> {
  await handled.completion?.();
  if (handled.raised.size > 0) await processing.untilAvailable(() => processing.applied.record([...handled.raised.values()]));
  handled.acknowledge();
}

const messageFields = (msg: JsMsg) => ({ subject: msg.subject, stream_sequence: msg.info.streamSequence, deliveries: msg.info.deliveryCount });

/**
 * The logger of one received event, with the message's and the event's fields, made on first use: a
 * child logger per message (pino serializes its fields when made) was a twentieth of a consumer's CPU.
 */
function eventLogger(base: Logger, msg: JsMsg, event: EventEnvelope): () => Logger {
  let made: Logger | undefined;
  return () => (made ??= base.child({ ...messageFields(msg), event_id: event.id, event_type: event.type, entity_id: event.entity_id, version: event.version }));
}
