import type { Problem } from '@rm/contracts';
import { HttpProblem } from '@rm/service-kit';
import { upstreamProblem } from '../forwarding.js';
import type { Upstream } from '../upstreams.js';
import type { ImportLine } from './import-line.js';

/** What one line's write came to: as a single call would have answered it, without the resource itself. */
export type LineOutcome =
  | { line: number; status: number; location?: string; etag?: string }
  | { line: number; status: number; problem: Problem & Record<string, unknown> };

/** The problem of a line that was not sent, or whose owner could not be reached. */
export function lineProblem(line: number, problem: HttpProblem): LineOutcome {
  return { line, status: problem.statusCode, problem: problem.toProblem() };
}

/**
 * Sends one line to the owner of its path as a single call: the caller's token and forwarded headers,
 * the line's own If-Match and Idempotency-Key, the request id suffixed with the line number.
 */
export async function forwardLine(
  upstream: Upstream,
  basePath: string,
  number: number,
  line: ImportLine,
  callerHeaders: Record<string, string | string[]>,
  signal: AbortSignal,
): Promise<LineOutcome> {
  const headers: Record<string, string | string[]> = { ...callerHeaders, ...line.headers, 'x-request-id': `${String(callerHeaders['x-request-id'])}.${number}` };
  if (line.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await upstream.pool.request({
      method: line.method,
      path: `${basePath}${line.path}`,
      headers,
      body: line.body === undefined ? null : JSON.stringify(line.body),
      signal,
    });
    if (response.statusCode < 300) {
      await response.body.dump();
      const { location, etag } = response.headers;
      return { line: number, status: response.statusCode, ...(typeof location === 'string' ? { location } : {}), ...(typeof etag === 'string' ? { etag } : {}) };
    }
    const text = await response.body.text();
    let problem: Problem & Record<string, unknown>;
    try {
      problem = JSON.parse(text) as Problem & Record<string, unknown>;
    } catch {
      problem = { title: 'Error', status: response.statusCode, detail: text.slice(0, 500) };
    }
    return { line: number, status: response.statusCode, problem };
  } catch (error) {
    const problem = upstreamProblem(upstream, error);
    return problem instanceof HttpProblem ? lineProblem(number, problem) : lineProblem(number, new HttpProblem({ status: 503, title: 'Service Unavailable', detail: `The ${upstream.service} service failed to answer; send this line again.`, code: 'RM_UNAVAILABLE' }));
  }
}
