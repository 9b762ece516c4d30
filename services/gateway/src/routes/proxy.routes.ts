import type { IncomingHttpHeaders } from 'node:http';
import { pipeline, Transform, type Readable } from 'node:stream';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { forwardedPrefixOf, ServiceUnavailable } from '@rm/service-kit';
import { BodyTooLarge, UnforwardableRequest, UpstreamTimeout } from '../errors.js';
import type { Upstream } from '../upstreams.js';

export interface ProxyRoutesOptions {
  upstreams: readonly Upstream[];
  bodyLimit: number;
  /** Makes a client span per forwarded request, whose context goes to the owner in `traceparent`. */
  tracer: Tracer;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and those the gateway sets itself. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // Node has answered 100 Continue to the caller already; undici refuses to send it on
  'expect',
  'host',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-prefix',
  'x-request-id',
]);
const NO_BODY_STATUSES = new Set([204, 304]);
/** Connection failures: the owner is down or unreachable. */
const DOWN = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);
const TIMED_OUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** The caller's request cannot be sent on as it came: its fault, not the owner's. */
const UNFORWARDABLE = new Map([
  ['UND_ERR_REQ_CONTENT_LENGTH_MISMATCH', 'The body does not have the length its Content-Length header says.'],
  ['UND_ERR_ABORTED', 'The request was cut off before it was complete.'],
  ['UND_ERR_INVALID_ARG', 'The request has a header that cannot be forwarded.'],
  ['UND_ERR_NOT_SUPPORTED', 'The request has a header that cannot be forwarded.'],
]);

/**
 * Forwards every path under the base URL to the service that owns it (the token was checked by
 * the authenticate hook before): method, path, query, headers and body as sent, streamed, with
 * `X-Forwarded-*` so that the service builds the caller's URLs; its answer comes back unchanged.
 */
export const proxyRoutes: FastifyPluginAsync<ProxyRoutesOptions> = async (api, { upstreams, bodyLimit, tracer }) => {
  // Bodies stay unread: the owner parses and judges them.
  api.removeAllContentTypeParsers();
  api.addContentTypeParser('*', (_request, _payload, done) => done(null));

  for (const upstream of upstreams) {
    const handler = (request: FastifyRequest, reply: FastifyReply) => forward(upstream, request, reply, bodyLimit, tracer);
    for (const path of upstream.paths) {
      api.all(path, handler);
      api.all(`${path}/*`, handler);
    }
  }
};

async function forward(
  upstream: Upstream,
  request: FastifyRequest,
  reply: FastifyReply,
  bodyLimit: number,
  tracer: Tracer,
): Promise<FastifyReply> {
  const declaredLength = Number(request.headers['content-length'] ?? 0);
  if (declaredLength > bodyLimit) throw new BodyTooLarge(bodyLimit);
  const hasBody = declaredLength > 0 || request.headers['transfer-encoding'] !== undefined;
  const aborted = new AbortController();
  reply.raw.once('close', () => aborted.abort());
  const path = request.raw.url ?? request.url;
  const span = tracer.startSpan(request.method, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: request.method,
      // the owner by name; its address is in url.full
      'peer.service': upstream.service,
      [ATTR_URL_FULL]: `${upstream.origin}${path}`,
    },
  });
  const headers = forwardedHeaders(request);
  // the owner's server span becomes a child of this one (a caller's own traceparent is replaced)
  propagation.inject(trace.setSpan(context.active(), span), headers);
  let response;
  try {
    response = await upstream.pool.request({
      method: request.method as 'GET',
      path,
      headers,
      body: hasBody ? withinLimit(request.raw, bodyLimit) : null,
      signal: aborted.signal,
    });
  } catch (error) {
    endClientSpan(span, undefined, error);
    throw upstreamProblem(upstream, error);
  }
  // ends at the answer's headers: the body streams on to the caller
  endClientSpan(span, response.statusCode);
  reply.code(response.statusCode).headers(endToEndHeaders(response.headers));
  if (NO_BODY_STATUSES.has(response.statusCode) || request.method === 'HEAD') {
    await response.body.dump();
    return reply.send();
  }
  return reply.send(response.body);
}

/**
 * The caller's body as it streams on to the owner, cut off with a 413 once it passes the limit: a chunked
 * body has no Content-Length to judge it by beforehand. Left to the owner, its refusal closed the
 * connection while the gateway was still sending, and the owner's 413 was lost (EPIPE: a 500).
 */
function withinLimit(body: Readable, limit: number): Readable {
  let received = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(received > limit ? new BodyTooLarge(limit) : null, chunk);
    },
  });
  // an error of either side ends both: the caller's body is not read on, and undici aborts with it
  pipeline(body, counted, () => undefined);
  return counted;
}

function endClientSpan(span: Span, statusCode: number | undefined, error?: unknown): void {
  if (statusCode !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode);
  if (error !== undefined || (statusCode !== undefined && statusCode >= 500)) {
    const errorType = statusCode === undefined ? String((error as { code?: unknown }).code ?? 'error') : String(statusCode);
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

function forwardedHeaders(request: FastifyRequest): Record<string, string | string[]> {
  const headers = endToEndHeaders(request.headers);
  const peer = request.socket.remoteAddress ?? '';
  const trustedChain = request.server.isTrustedProxy(peer) ? [request.headers['x-forwarded-for'] ?? []].flat().join(', ') : '';
  headers['x-forwarded-for'] = trustedChain === '' ? peer : `${trustedChain}, ${peer}`;
  headers['x-forwarded-proto'] = request.protocol;
  headers['x-forwarded-host'] = request.host;
  const prefix = forwardedPrefixOf(request);
  if (prefix !== '') headers['x-forwarded-prefix'] = prefix;
  headers['x-request-id'] = request.id;
  return headers;
}

/** The headers that pass a proxy, in either direction: none of NOT_FORWARDED, none a `Connection` header names. */
function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = connectionTokens(headers.connection);
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name) && !named.has(name)) kept[name] = value;
  }
  return kept;
}

/** Headers a `Connection` header names are hop-by-hop too. */
function connectionTokens(header: string | string[] | undefined): Set<string> {
  return new Set([header ?? []].flat().flatMap((value) => value.split(',')).map((token) => token.trim().toLowerCase()).filter((token) => token !== ''));
}

function upstreamProblem(upstream: Upstream, error: unknown): Error {
  if (error instanceof BodyTooLarge) return error;
  const code = String((error as { code?: unknown }).code);
  if (TIMED_OUT.has(code)) return new UpstreamTimeout(upstream.service, error);
  if (DOWN.has(code)) return new ServiceUnavailable(`The ${upstream.service} service cannot be reached right now; retry later.`, { cause: error });
  const unforwardable = UNFORWARDABLE.get(code);
  if (unforwardable !== undefined) return new UnforwardableRequest(unforwardable, error);
  return error instanceof Error ? error : new Error(String(error));
}
