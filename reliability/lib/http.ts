import { Agent } from 'undici';

export interface RawRequest {
  method: string;
  /** Path and query as sent, not normalised (odd characters stay as they are). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

/** Longest wait for a whole answer; undici's own timeouts do not cover a request body that is never read. */
export const ANSWER_TIMEOUT_MS = 40_000;

export interface RawResponse {
  /** 0 when no answer came within ANSWER_TIMEOUT_MS. */
  status: number;
  headers: Record<string, string>;
  body: string;
}

const AGENT_OPTIONS = { connections: 64, headersTimeout: 30_000, bodyTimeout: 30_000 };
/** One undici agent for every request of a run: pooled keep-alive connections, bounded waits. */
const agent = new Agent(AGENT_OPTIONS);
/** Agents whose connections leave from another loopback address (127.0.0.2, …), which the gateway does not trust as its proxy. */
const agentsFrom = new Map<string, Agent>();

/**
 * Sends the request as it is to `origin`. Resolves undefined when the connection closed without an
 * answer (a blocked IP); throws when undici refuses to send it (a path or header it cannot write).
 * `from`: the local address its connection leaves from.
 */
export async function send(origin: string, { method, path, headers = {}, body }: RawRequest, from?: string): Promise<RawResponse | undefined> {
  let sender = agent;
  if (from !== undefined) {
    sender = agentsFrom.get(from) ?? new Agent({ ...AGENT_OPTIONS, localAddress: from });
    agentsFrom.set(from, sender);
  }
  try {
    const signal = AbortSignal.timeout(ANSWER_TIMEOUT_MS);
    const response = await sender.request({ origin, method: method as 'GET', path, headers, body, signal });
    // the change feed's answer never ends by design: its status and headers are the answer
    const streamed = String(response.headers['content-type'] ?? '').startsWith('text/event-stream');
    if (streamed) response.body.destroy();
    const text = streamed ? '' : await response.body.text();
    const flat = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
    );
    return { status: response.statusCode, headers: flat, body: text };
  } catch (error) {
    if (isClosedConnection(error)) return undefined;
    if ((error as Error).name === 'TimeoutError' || (error as { code?: string }).code === 'UND_ERR_ABORTED') {
      return { status: 0, headers: {}, body: `no answer within ${ANSWER_TIMEOUT_MS / 1000} s` };
    }
    throw error;
  }
}

function isClosedConnection(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'UND_ERR_CLOSED' || code === 'EPIPE';
}

/** A JSON request with a bearer token. */
export function jsonRequest(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): RawRequest {
  return {
    method,
    path,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
