import type { FastifyInstance, FastifyRequest } from 'fastify';
import { scan as refusePrototypeKeys } from 'secure-json-parse';
import type { Violation } from '@rm/contracts';
import { UnsupportedMediaType, ValidationProblem } from './errors.js';
import { fieldPath } from './violations.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Top-level body fields kept exactly as the caller sent them, whatever their keys (a transport
     * resource's `custom_data`): `__proto__` and `constructor.prototype` are accepted inside them only.
     */
    opaqueJsonFields?: readonly string[];
  }
}

/** fastify's own JSON parser in its callback form: secure-json-parse, refusing prototype poisoning. */
type JsonParser = (request: FastifyRequest, text: string, done: (error: Error | null, value?: unknown) => void) => void;

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_LABELS = new Set(['utf-8', 'utf8']);
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi;
/** A lone surrogate can only come from a `\uD800`–`\uDFFF` escape: UTF8 refuses encoded ones. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** Enough to fix a body; a body full of them would otherwise make an answer larger than itself. */
const MAX_REPORTED = 100;
const UNPAIRED_SURROGATE = 'must be valid Unicode text, without unpaired surrogates like \\ud800';

/**
 * Replaces fastify's body parsers with one for application/json that takes the body only as
 * sent: no content coding (fastify would read gzip as text), UTF-8 only (it would read any
 * charset, and invalid bytes, as UTF-8 with replacement characters), and no string or property
 * name with an unpaired surrogate (JSON.parse keeps them; BSON would store them altered).
 * Other media types, text/plain included, get a 415.
 */
export function acceptStrictJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error') as JsonParser;
  const parseJsonKeepingKeys = app.getDefaultJsonParser('ignore', 'ignore') as JsonParser;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    // A request no route takes is answered 404 or 405, whatever its body.
    if (request.is404) return undefined;
    refuseContentCodings(request.headers['content-encoding']);
    refuseOtherCharsets(request.headers['content-type'] ?? '');
    const text = decodeUtf8(body);
    const opaqueFields = request.routeOptions.config.opaqueJsonFields ?? [];
    const value =
      opaqueFields.length === 0 ?
        await parseWithoutPoisoning(parseJson, request, text)
      : refusePoisoningOutside(opaqueFields, await parseWith(parseJsonKeepingKeys, request, text));
    if (SURROGATE_ESCAPE.test(text)) {
      const fields = fieldsWithUnpairedSurrogates(value);
      if (fields.length > 0) throw new ValidationProblem(fields.map((field): Violation => ({ field, message: UNPAIRED_SURROGATE })));
    }
    return value;
  });
}

function refuseContentCodings(header: string | undefined): void {
  const codings = (header ?? '').split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '');
  if (codings.every((coding) => coding === 'identity')) return;
  throw new UnsupportedMediaType('The request body must not be compressed: only Content-Encoding identity is supported.', {
    'Accept-Encoding': 'identity',
  });
}

function refuseOtherCharsets(contentType: string): void {
  for (const [, quoted, token] of contentType.matchAll(CHARSET_PARAMETER)) {
    if (!UTF8_LABELS.has((quoted ?? token ?? '').toLowerCase())) throw new UnsupportedMediaType('The request body must be UTF-8 (charset=utf-8).');
  }
}

function decodeUtf8(body: Buffer): string {
  try {
    return UTF8.decode(body);
  } catch {
    throw new ValidationProblem([{ field: 'body', message: 'must be UTF-8 text' }]);
  }
}

const poisoningProblem = () => new ValidationProblem([{ field: 'body', message: 'must not contain the keys __proto__ or constructor.prototype' }]);

function parseWith(parseJson: JsonParser, request: FastifyRequest, text: string): Promise<unknown> {
  return new Promise((resolve, reject) => parseJson(request, text, (error, value) => (error === null ? resolve(value) : reject(error))));
}

async function parseWithoutPoisoning(parseJson: JsonParser, request: FastifyRequest, text: string): Promise<unknown> {
  try {
    return await parseWith(parseJson, request, text);
  } catch (error) {
    // fastify reports a poisoning key as invalid JSON; tell the caller what is actually wrong.
    if (isValidJson(text)) throw poisoningProblem();
    throw error;
  }
}

/** The body, if no prototype key is found outside its opaque fields (JSON.parse made them own properties, never prototypes). */
function refusePoisoningOutside(opaqueFields: readonly string[], value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const outside = Array.isArray(value) ? value : Object.fromEntries(Object.entries(value).filter(([key]) => !opaqueFields.includes(key)));
  try {
    refusePrototypeKeys(outside);
  } catch {
    throw poisoningProblem();
  }
  return value;
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

interface Visit {
  value: unknown;
  segment: string;
  parent: Visit | undefined;
}

/**
 * Paths of the strings and property names that are not well-formed UTF-16. Iterative, with paths
 * built only for what is reported, so that a deeply nested body cannot exhaust the stack.
 */
function fieldsWithUnpairedSurrogates(root: unknown): string[] {
  const fields: string[] = [];
  const pending: Visit[] = [{ value: root, segment: '', parent: undefined }];
  const report = (visit: Visit) => fields.push(visit.parent === undefined ? 'body' : fieldPath(segmentsOf(visit)));
  for (let visit = pending.pop(); visit !== undefined && fields.length < MAX_REPORTED; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) report(visit);
    } else if (typeof value === 'object' && value !== null) {
      // A malformed property name is reported in place of its value; pushed in reverse so that
      // fields are reported in document order.
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index] as [string, unknown];
        pending.push({ value: key.isWellFormed() ? item : key, segment: key, parent: visit });
      }
    }
  }
  return fields;
}

function segmentsOf(visit: Visit): string[] {
  const segments: string[] = [];
  for (let current: Visit | undefined = visit; current?.parent !== undefined; current = current.parent) segments.push(current.segment);
  return segments.reverse();
}
