import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationProblem } from './errors.js';

/** Weak ETag of an entity version: `W/"3"`. */
export function etag(version: number): string {
  return `W/"${version}"`;
}

/** A parsed If-Match: any existing version (`*`), or the listed versions, any of which matches. */
export type IfMatch = { any: true } | { versions: readonly number[] };

const ENTITY_TAG_LIST = /^\s*(?:W\/)?"[^"]*"\s*(?:,\s*(?:W\/)?"[^"]*"\s*)*$/;
const VERSION = /^(0|[1-9]\d{0,14})$/;

/**
 * Reads If-Match with weak comparison (the spec compares its weak ETags; RFC 9110 alone would
 * compare strongly): `"3"` and `W/"3"` both name version 3. A header that is not `*` or a list of
 * our version tags is a 400 on field `If-Match`.
 */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(', ') : header;
  if (text.trim() === '*') return { any: true };
  if (!ENTITY_TAG_LIST.test(text)) return malformedIfMatch();
  const opaques = Array.from(text.matchAll(/"([^"]*)"/g), (match) => match[1] ?? '');
  if (!opaques.every((opaque) => VERSION.test(opaque))) return malformedIfMatch();
  return { versions: opaques.map(Number) };
}

function malformedIfMatch(): never {
  throw new ValidationProblem([{ field: 'If-Match', message: 'must be * or entity tags like W/"3"' }]);
}

export type ReturnPreference = 'minimal' | 'representation';

/** The `return` preference of a Prefer header; other preferences are ignored (RFC 7240). */
export function preferredReturn(header: string | string[] | undefined): ReturnPreference | undefined {
  if (header === undefined) return undefined;
  const preferences = (Array.isArray(header) ? header.join(',') : header).split(',');
  for (const preference of preferences) {
    const [token = '', ...rest] = (preference.split(';')[0] ?? '').split('=');
    if (token.trim().toLowerCase() !== 'return') continue;
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (value === 'minimal' || value === 'representation') return value;
  }
  return undefined;
}

const PREFIX = /^(\/[A-Za-z0-9._~!$&'()*+;=:@%-]+)+$/;

/**
 * Absolute URI of a resource as the caller sees it: scheme, host and `X-Forwarded-Prefix` from a
 * trusted proxy (TRUST_PROXY; else the connection's scheme, the Host header and no prefix), the
 * public base path, then `path` (already URL-encoded, like `/employee/e-1`).
 */
export function resourceUrl(request: FastifyRequest, path: string): string {
  return `${publicOrigin(request)}${request.server.publicBasePath}${path}`;
}

/** Where the caller reached us: scheme, host and a trusted proxy's `X-Forwarded-Prefix`, like `https://api.example.com/rm`. */
export function publicOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${forwardedPrefixOf(request)}`;
}

/** The trusted `X-Forwarded-Prefix` of the request, or ''. */
export function forwardedPrefixOf(request: FastifyRequest): string {
  return request.server.isTrustedProxy(request.socket.remoteAddress) ? forwardedPrefix(request.headers['x-forwarded-prefix']) : '';
}

/** The last entry, added by the nearest proxy, as fastify reads X-Forwarded-Proto and -Host. */
function forwardedPrefix(header: string | string[] | undefined): string {
  const candidate = withoutTrailingSlashes([header ?? []].flat().join(',').split(',').at(-1)?.trim() ?? '');
  return PREFIX.test(candidate) ? candidate : '';
}

/** A loop, not `/\/+$/`: that pattern is tried at every slash of a run, so its cost grows with the run's square. */
function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end -= 1;
  return text.slice(0, end);
}

export interface WrittenResource {
  /** 201 for a create, 200 for an update. */
  status: 200 | 201;
  body: unknown;
  version: number;
  /** Absolute URI of the resource, from `resourceUrl`. */
  location: string;
}

/**
 * Answers a successful write (DESIGN §3): ETag, Location, `Vary: Prefer` and Preference-Applied;
 * 204 without body for `Prefer: return=minimal`, else the status with the body.
 */
export function replyWritten(reply: FastifyReply, { status, body, version, location }: WrittenResource): FastifyReply {
  const minimal = preferredReturn(reply.request.headers.prefer) === 'minimal';
  reply
    .header('ETag', etag(version))
    .header('Location', location)
    .header('Vary', 'Prefer')
    .header('Preference-Applied', minimal ? 'return=minimal' : 'return=representation');
  return minimal ? reply.code(204).send() : reply.code(status).send(body);
}

/** 200 with the resource and its ETag. */
export function replyRead(reply: FastifyReply, { body, version }: { body: unknown; version: number }): FastifyReply {
  return reply.header('ETag', etag(version)).code(200).send(body);
}

/** 204 with an empty body (spec: deletes return an empty body). */
export function replyDeleted(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
