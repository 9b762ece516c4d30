// The rules every answer of the stack keeps, however hostile the request: no 5xx, problem+json for
// errors, and nothing in a body or header that tells how the system is built.
import type { RawRequest, RawResponse } from './http.ts';
import { parseJson } from './http.ts';
import { excerpt, type Finding } from './report.ts';

/**
 * What must never reach a caller, and why each: a stack frame or source location shows code paths;
 * the storage, broker and library names show what to attack (and their error texts usually carry
 * queries or keys); JavaScript error texts show an unhandled path; socket error codes and the owners'
 * addresses show the inside of the network. A term the request itself carried does not count, since
 * bodies may echo what the caller sent (an id, a name).
 */
export const LEAK_PATTERNS: readonly RegExp[] = [
  /\n?\s{4}at [\w.<]/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /node_modules/,
  /file:\/\//,
  /mongo/i,
  /ferret/i,
  /postgres/i,
  /\bnats\b/i,
  /jetstream/i,
  /E11000/,
  /ObjectId/,
  /\bbson\b/i,
  /fastify/i,
  /FST_/,
  /\bajv\b/i,
  /instancePath/,
  /undici/i,
  /UND_ERR/,
  /\bpino\b/i,
  /(?:Type|Reference|Range|Syntax)Error/,
  /Cannot read propert/,
  /is not a function/,
  /ECONN(?:REFUSED|RESET)|ETIMEDOUT|EPIPE/,
];

/** Where a request went, for a finding. */
export function describeRequest(request: RawRequest, note = ''): string {
  const path = request.path.length > 160 ? `${request.path.slice(0, 160)}…(${request.path.length} chars)` : request.path;
  return `${request.method} ${path}${note === '' ? '' : ` [${note}]`}`;
}

export interface CheckOptions {
  /** A short note on what made the request hostile. */
  note?: string;
  /** Addresses that are internal (the owners' origins): never in an answer. */
  internalHosts?: readonly string[];
}

/** The findings in one answer. */
export function checkResponse(request: RawRequest, response: RawResponse, { note = '', internalHosts = [] }: CheckOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const described = describeRequest(request, note);
  const found = (rule: string, text: string) =>
    findings.push({ rule, request: described, status: response.status, excerpt: excerpt(text) });

  if (response.status === 0) found('no answer in time', response.body);
  if (response.status >= 500) found('5xx', response.body);
  const tokenEndpoint = request.path.startsWith('/oauth2/token');
  const expectsProblem = response.status >= 400 && response.status < 500 && response.status !== 401 && request.method !== 'HEAD';
  // a request refused before any route (its Host is missing or not a host) is a problem on every path, this one too
  const refusedBeforeRouting = /"field":"Host"/.test(response.body);
  if (expectsProblem && tokenEndpoint && !refusedBeforeRouting && (response.status === 400 || response.status === 401)) {
    // RFC 6749 §5.2: token errors are application/json with `error`
    const body = parseJson(response.body) as { error?: unknown } | undefined;
    if (typeof body?.error !== 'string') found('token error without RFC 6749 body', response.body);
  } else if (expectsProblem) {
    const body = parseJson(response.body) as { title?: unknown; status?: unknown } | undefined;
    if (!(response.headers['content-type'] ?? '').startsWith('application/problem+json')) {
      found('4xx not problem+json', `content-type ${response.headers['content-type'] ?? 'none'}: ${response.body}`);
    } else if (typeof body?.title !== 'string' || (body.status !== undefined && body.status !== response.status)) {
      found('problem without title or with another status', response.body);
    }
  }

  const sent = `${request.path}\n${JSON.stringify(request.headers ?? {})}\n${request.body?.toString() ?? ''}`.toLowerCase();
  const answered = `${response.body}\n${Object.entries(response.headers).map(([name, value]) => `${name}: ${value}`).join('\n')}`;
  for (const pattern of LEAK_PATTERNS) {
    const match = pattern.exec(answered);
    if (match !== null && !sent.includes(match[0].trim().toLowerCase())) found(`leak ${pattern.source}`, around(answered, match.index));
  }
  for (const host of internalHosts) {
    const at = answered.indexOf(host);
    if (at >= 0) found('leak of an internal address', around(answered, at));
  }
  return findings;
}

function around(text: string, index: number): string {
  return text.slice(Math.max(0, index - 80), index + 120);
}
