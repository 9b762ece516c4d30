import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * A server span per request, `METHOD /route/{pattern}`, child of the caller's `traceparent`. The request
 * is handled in its context, so that its log lines, the calls it makes and the events it writes carry
 * its trace. A 5xx answer marks the span failed. With the API's no-op tracer this costs next to nothing.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  const spans = new WeakMap<FastifyRequest, Span>();

  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    const span = tracer.startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_URL_PATH]: request.url.split('?')[0],
          [ATTR_URL_SCHEME]: request.protocol,
          [ATTR_CLIENT_ADDRESS]: request.ip,
          ...(route === undefined ? {} : { [ATTR_HTTP_ROUTE]: route }),
        },
      },
      propagation.extract(ROOT_CONTEXT, request.headers),
    );
    spans.set(request, span);
    const active = trace.setSpan(ROOT_CONTEXT, span);
    // the body arrives, and the response finishes, in events of the connection: they join the request's context
    context.bind(active, request.raw);
    context.bind(active, reply.raw);
    context.with(active, done);
  });

  function end(request: FastifyRequest, statusCode?: number): void {
    const span = spans.get(request);
    if (span === undefined) return;
    spans.delete(request);
    if (statusCode === undefined) span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
    else span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode);
    if (statusCode !== undefined && statusCode >= 500) {
      span.setAttribute(ATTR_ERROR_TYPE, String(statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }

  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode));
  // the caller went away: no response, and no onResponse
  app.addHook('onRequestAbort', async (request) => end(request));
}
