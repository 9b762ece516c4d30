import type { JetStreamClient } from '@nats-io/jetstream';
import { propagation, ROOT_CONTEXT, SpanKind, type Tracer } from '@opentelemetry/api';
import type { OutboxEntry } from '@rm/contracts';
import { defaultTracer, markFailed, messagingAttributes, traceHeaders } from './message-tracing.js';
import { createTaskPool } from './task-pool.js';

export interface PublishEventsOptions {
  /** Publishes awaiting their PubAck at once (default 256). */
  maxInFlight?: number;
  /** Wait for each PubAck (default 5 s). */
  publishTimeoutMs?: number;
  /** Makes a `publish <subject>` span per event, in the trace of the write that raised it. */
  tracer?: Tracer;
}

/**
 * Publishes one event under its id as Nats-Msg-Id, in a `publish <subject>` span in the trace of the
 * write that raised it (its headers carry the span on to the consumers); resolves once the stream has it.
 */
export async function publishEvent(
  js: Pick<JetStreamClient, 'publish'>,
  event: OutboxEntry,
  { publishTimeoutMs, tracer }: Required<Pick<PublishEventsOptions, 'publishTimeoutMs' | 'tracer'>>,
): Promise<void> {
  const { subject, trace, ...envelope } = event;
  const span = tracer.startSpan(
    `publish ${subject}`,
    { kind: SpanKind.PRODUCER, attributes: messagingAttributes('send', subject, event.id) },
    propagation.extract(ROOT_CONTEXT, trace ?? {}),
  );
  try {
    // the trace context goes in headers, never in the event: consumers' spans become children of this one
    await js.publish(subject, JSON.stringify(envelope), { msgID: event.id, timeout: publishTimeoutMs, headers: traceHeaders(span) });
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Publishes events that no outbox holds (a collection whose only writer publishes them itself), many in
 * flight, each under its id as Nats-Msg-Id: the stream keeps one copy of an event published again within
 * its duplicate window. Resolves once the stream has stored every one; rejects with the first failure,
 * after the others have settled, for the writer to publish them all again.
 */
export async function publishEvents(js: Pick<JetStreamClient, 'publish'>, events: readonly OutboxEntry[], options: PublishEventsOptions = {}): Promise<void> {
  const { maxInFlight = 256, publishTimeoutMs = 5_000, tracer = defaultTracer() } = options;
  const pool = createTaskPool(maxInFlight);
  let failure: { error: unknown } | undefined;
  for (const event of events) {
    if (failure !== undefined) break;
    await pool.run(async () => {
      try {
        await publishEvent(js, event, { publishTimeoutMs, tracer });
      } catch (error) {
        failure ??= { error };
      }
    });
  }
  await pool.drain();
  if (failure !== undefined) throw failure.error;
}
