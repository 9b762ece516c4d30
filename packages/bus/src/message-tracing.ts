import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import type { JsMsg } from '@nats-io/jetstream';
import { headers, type MsgHdrs } from '@nats-io/transport-node';

/** Spans of the bus without a tracer of their own: the API's global one, a no-op unless a provider was registered. */
export const defaultTracer = () => trace.getTracer('@rm/bus');

/** Messaging attributes of a span on `subject` (OpenTelemetry semantic conventions). */
export function messagingAttributes(operation: 'send' | 'process', subject: string, messageId?: string): Attributes {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': operation,
    'messaging.destination.name': subject,
    ...(messageId === undefined ? {} : { 'messaging.message.id': messageId }),
  };
}

/** Message headers that carry a span's trace context (`traceparent`, `tracestate`) to the consumers. */
export function traceHeaders(span: Span): MsgHdrs {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  const traced = headers();
  for (const [name, value] of Object.entries(carrier)) traced.set(name, value);
  return traced;
}

const messageHeaders: TextMapGetter<MsgHdrs | undefined> = {
  keys: (carrier) => carrier?.keys() ?? [],
  // MsgHdrs answers '' for a header it does not have
  get: (carrier, key) => carrier?.get(key) || undefined,
};

/** A message's handling: its span, and the context its handler runs in. */
export interface MessageTrace {
  span: Span;
  context: Context;
}

/** A `consume <subject>` span, child of the context the message was published in (its `traceparent`). */
export function startConsumeSpan(tracer: Tracer, msg: JsMsg): MessageTrace {
  const published = propagation.extract(ROOT_CONTEXT, msg.headers, messageHeaders);
  const span = tracer.startSpan(
    `consume ${msg.subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: { ...messagingAttributes('process', msg.subject), 'messaging.nats.delivery_count': msg.info.deliveryCount },
    },
    published,
  );
  return { span, context: trace.setSpan(published, span) };
}

/**
 * Where a batch handler runs: in the context of its one message, or, for messages of several traces,
 * in a `consume batch` span of its own that links to each message's span. `end` ends that span.
 */
export function startBatchTrace(tracer: Tracer, messages: readonly MessageTrace[]): { context: Context; end(): void } {
  const [only] = messages;
  if (messages.length === 1 && only !== undefined) return { context: only.context, end: () => undefined };
  const links = messages.map((message) => ({ context: message.span.spanContext() }));
  const span = tracer.startSpan('consume batch', { root: true, links });
  return { context: trace.setSpan(ROOT_CONTEXT, span), end: () => span.end() };
}

/** Marks a span failed, with the error's message. */
export function markFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
