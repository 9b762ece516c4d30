import { GENERATION_PATH, type Violation } from '@rm/contracts';

/** One write of an import, as its line asked for it. */
export interface ImportLine {
  method: 'PUT' | 'POST' | 'DELETE';
  /** Under the base URL, like `/employee/e1/availability`, each segment escaped one way; no query. */
  path: string;
  body?: Record<string, unknown>;
  headers: { 'if-match'?: string; 'idempotency-key'?: string };
  /** Lines of one key apply in order: the resource the path names first (`/employee/e1`). */
  key: string;
}

const METHODS = new Set(['PUT', 'POST', 'DELETE']);
const HEADERS = new Set(['if-match', 'idempotency-key']);
const PATH = /^(\/(?:[A-Za-z0-9.~_-]|%[0-9A-Fa-f]{2})+)+$/;

/**
 * The path in one spelling, so that lines naming one resource share their key whether or not they escape
 * it (`/employee/e%2D1` is `/employee/e-1`), as a single call's route reads them; undefined when an escape
 * is not UTF-8 or a segment is a dot segment.
 */
function canonicalPath(path: string): string | undefined {
  try {
    const segments = path.split('/').slice(1).map(decodeURIComponent);
    if (segments.some((segment) => segment === '.' || segment === '..')) return undefined;
    return segments.map((segment) => `/${encodeURIComponent(segment)}`).join('');
  } catch {
    return undefined;
  }
}

/** The write a line asks for, or what is wrong with it: each broken rule a violation naming its field. */
export function parseImportLine(text: string, owned: (path: string) => boolean): { ok: true; line: ImportLine } | { ok: false; violations: Violation[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, violations: [{ field: 'line', message: 'must be one JSON object' }] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, violations: [{ field: 'line', message: 'must be one JSON object' }] };
  const { method, path, body, headers = {}, ...unknown } = parsed as Record<string, unknown>;
  const violations: Violation[] = Object.keys(unknown).map((field) => ({ field, message: 'is not a field of an import line' }));
  if (typeof method !== 'string' || !METHODS.has(method)) violations.push({ field: 'method', message: 'must be PUT, POST or DELETE' });
  const canonical = typeof path === 'string' && path.length <= 2048 && PATH.test(path) ? canonicalPath(path) : undefined;
  if (canonical === undefined) violations.push({ field: 'path', message: 'must be a path under the base URL, like /employee/e1, without a query' });
  else if (!owned(canonical)) violations.push({ field: 'path', message: 'names no resource of the API' });
  // its writes would count as one line of the tenant's rate: call it directly, where each counts
  else if (GENERATION_PATH.test(canonical)) violations.push({ field: 'path', message: 'is a generation, which writes many availabilities: call it directly, not in an import' });
  if (method === 'DELETE' ? body !== undefined : typeof body !== 'object' || body === null || Array.isArray(body)) {
    violations.push({ field: 'body', message: method === 'DELETE' ? 'must be absent for DELETE' : 'must be a JSON object' });
  }
  const headerEntries = typeof headers === 'object' && headers !== null && !Array.isArray(headers) ? Object.entries(headers) : undefined;
  if (headerEntries === undefined) violations.push({ field: 'headers', message: 'must be an object' });
  for (const [name, value] of headerEntries ?? []) {
    if (!HEADERS.has(name.toLowerCase())) violations.push({ field: `headers.${name}`, message: 'only if-match and idempotency-key may be given' });
    else if (typeof value !== 'string' || value.length > 1024) violations.push({ field: `headers.${name}`, message: 'must be a string of at most 1024 characters' });
  }
  if (violations.length > 0) return { ok: false, violations };
  const segments = (canonical as string).split('/');
  return {
    ok: true,
    line: {
      method: method as ImportLine['method'],
      path: canonical as string,
      ...(body === undefined ? {} : { body: body as Record<string, unknown> }),
      headers: Object.fromEntries((headerEntries ?? []).map(([name, value]) => [name.toLowerCase(), value as string])),
      key: segments.slice(0, 3).join('/'),
    },
  };
}
