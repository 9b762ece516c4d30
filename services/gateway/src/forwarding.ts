import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { forwardedPrefixOf, ServiceUnavailable } from '@rm/service-kit';
import { BodyTooLarge, UnforwardableRequest, UpstreamTimeout } from './errors.js';
import type { Upstream } from './upstreams.js';

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

/** What an owner is sent besides the caller's end-to-end headers: who asked, through which origin and prefix, as which request. */
export function forwardedHeaders(request: FastifyRequest): Record<string, string | string[]> {
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
export function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
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

/** The problem a failed request to an owner stands for: down, too slow, or the caller's request not forwardable. */
export function upstreamProblem(upstream: Upstream, error: unknown): Error {
  if (error instanceof BodyTooLarge) return error;
  const code = String((error as { code?: unknown }).code);
  if (TIMED_OUT.has(code)) return new UpstreamTimeout(upstream.service, error);
  if (DOWN.has(code)) return new ServiceUnavailable(`The ${upstream.service} service cannot be reached right now; retry later.`, { cause: error });
  const unforwardable = UNFORWARDABLE.get(code);
  if (unforwardable !== undefined) return new UnforwardableRequest(unforwardable, error);
  return error instanceof Error ? error : new Error(String(error));
}
