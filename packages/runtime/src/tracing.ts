import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export interface TracingOptions {
  /**
   * Receives the service's spans instead of the OTLP exporter, whether or not an endpoint is set (tests:
   * a SimpleSpanProcessor over an InMemorySpanExporter). Its owner shuts it down: the service only flushes it.
   */
  spanProcessor?: SpanProcessor;
}

export interface TracingSettings extends TracingOptions {
  /** service.name of the spans. */
  serviceName: string;
  /** OTLP/HTTP collector (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `<endpoint>/v1/traces`. */
  endpoint: string | undefined;
}

export interface Tracing {
  tracer: Tracer;
  /** Sends the spans still buffered; then stops the exporter, unless the processor was given. Absent when off. */
  stop?(): Promise<void>;
}

const TRACER_NAME = '@rm/runtime';

/**
 * The service's tracer. Off (neither an endpoint nor a processor): the API's global tracer, a no-op,
 * since no provider is ever registered globally. On: a provider of the service's own, so that services
 * sharing a process (tests) keep their service.name, batching spans to the OTLP/HTTP exporter.
 */
export function startTracing({ serviceName, endpoint, spanProcessor }: TracingSettings): Tracing {
  if (endpoint === undefined && spanProcessor === undefined) return { tracer: trace.getTracer(TRACER_NAME) };
  installContextPropagation();
  const processor = spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint as string) }));
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName })),
    spanProcessors: [processor],
  });
  return {
    tracer: provider.getTracer(TRACER_NAME),
    stop: () => (spanProcessor === undefined ? provider.shutdown() : provider.forceFlush()),
  };
}

/**
 * The active context follows async code (AsyncLocalStorage) and crosses HTTP and NATS as W3C
 * `traceparent` and `tracestate`. Both are the process's: the first traced service installs them.
 */
function installContextPropagation(): void {
  const manager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(manager.enable())) propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  else manager.disable();
}

/** The signal's path under the collector's base address, as the OTLP exporter spec says for OTEL_EXPORTER_OTLP_ENDPOINT. */
function tracesUrl(endpoint: string): string {
  return new URL('v1/traces', endpoint.endsWith('/') ? endpoint : `${endpoint}/`).href;
}
