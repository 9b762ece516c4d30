import { pipeline, Transform, type Readable } from 'node:stream';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { GENERATION_PATH, MAX_GENERATED_PER_CALL, WRITES_HEADER } from '@rm/contracts';
import { BodyTooLarge, TooManyGenerations, UpstreamTimeout } from '../errors.js';
import { endToEndHeaders, forwardedHeaders, upstreamProblem } from '../forwarding.js';
import type { Upstream } from '../upstreams.js';

export interface ProxyRoutesOptions {
  upstreams: readonly Upstream[];
  bodyLimit: number;
  /** Makes a client span per forwarded request, whose context goes to the owner in `traceparent`. */
  tracer: Tracer;
  /** Counts the writes an owner made for one call (its WRITES_HEADER) against the caller's tenant. */
  chargeWrites: (request: FastifyRequest, writes: number) => void;
}

const NO_BODY_STATUSES = new Set([204, 304]);
/**
 * Generations of one tenant under way at once on one replica. Their writes are charged to the tenant
 * when their answers come (up to 1,000 each), so without a bound a burst of calls, each one request of
 * the rate, would all be admitted before the first charge lands.
 */
export const GENERATIONS_PER_TENANT = 4;

/**
 * Forwards every path under the base URL to the service that owns it (the token was checked by
 * the authenticate hook before): method, path, query, headers and body as sent, streamed, with
 * `X-Forwarded-*` so that the service builds the caller's URLs; its answer comes back unchanged.
 */
export const proxyRoutes: FastifyPluginAsync<ProxyRoutesOptions> = async (api, { upstreams, bodyLimit, tracer, chargeWrites }) => {
  // Bodies stay unread: the owner parses and judges them.
  api.removeAllContentTypeParsers();
  api.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const generations = new Map<string, number>();
  /** Forwards a generation call while the tenant has room for one more under way. */
  async function forwardGeneration(upstream: Upstream, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { tenant } = request.auth;
    const underWay = generations.get(tenant) ?? 0;
    if (underWay >= GENERATIONS_PER_TENANT) throw new TooManyGenerations(GENERATIONS_PER_TENANT);
    generations.set(tenant, underWay + 1);
    try {
      return await forward(upstream, request, reply, { bodyLimit, tracer, chargeWrites });
    } finally {
      const left = (generations.get(tenant) ?? 1) - 1;
      if (left === 0) generations.delete(tenant);
      else generations.set(tenant, left);
    }
  }

  for (const upstream of upstreams) {
    const handler = (request: FastifyRequest, reply: FastifyReply) =>
      request.method === 'POST' && GENERATION_PATH.test(request.url.split('?')[0]!)
        ? forwardGeneration(upstream, request, reply)
        : forward(upstream, request, reply, { bodyLimit, tracer, chargeWrites });
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
  { bodyLimit, tracer, chargeWrites }: Omit<ProxyRoutesOptions, 'upstreams'>,
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
    const problem = upstreamProblem(upstream, error);
    // a generation under way goes on without its caller (gone, or out of time), whose answer would have
    // named its writes: the most it may make. One its owner never got (down) wrote nothing.
    const underWay = aborted.signal.aborted || problem instanceof UpstreamTimeout;
    if (underWay && GENERATION_PATH.test(path.split('?')[0]!)) chargeWrites(request, MAX_GENERATED_PER_CALL);
    throw problem;
  }
  // ends at the answer's headers: the body streams on to the caller
  endClientSpan(span, response.statusCode);
  const writes = Number(response.headers[WRITES_HEADER] ?? 0);
  if (Number.isSafeInteger(writes) && writes > 0) chargeWrites(request, writes);
  const { [WRITES_HEADER]: _writes, ...answered } = endToEndHeaders(response.headers);
  reply.code(response.statusCode).headers(answered);
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
