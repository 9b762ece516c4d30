import { sleep } from './sleep.js';

export interface RetryPolicy {
  /** Attempts after the first; 0 never retries. */
  retries: number;
  /** The longest wait between two attempts, whatever Retry-After asks. */
  maxDelayMs: number;
}

/** What decides whether a request may be sent again. */
export interface RetriedRequest {
  /** Sending it twice does no more than once (see isRepeatable). */
  repeatable: boolean;
  /** The caller's signal: once aborted, nothing is tried again. */
  signal?: AbortSignal | undefined;
}

/** Answers that say "not now": nothing was done, and `Retry-After` says when to come back. */
const BUSY = new Set([429, 503]);
/** An answer that says "no answer in time": the request may have been done, so only a safe one is sent again. */
const TIMED_OUT = 504;
/** Methods whose repetition changes nothing more (RFC 9110 §9.2.2); a POST is made so by its Idempotency-Key. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

/**
 * Sends `attempt` until it gets an answer to keep: a 429 or 503 is tried again after its
 * `Retry-After`; a 504 or a failed connection only if the request is safe to repeat (idempotent,
 * or a POST with an Idempotency-Key), after a growing pause. The last answer, or error, is the result.
 */
export async function retrying(policy: RetryPolicy, request: RetriedRequest, attempt: () => Promise<Response>): Promise<Response> {
  const { repeatable } = request;
  for (let retry = 0; ; retry++) {
    const last = retry >= policy.retries;
    let response: Response;
    try {
      response = await attempt();
    } catch (error) {
      // only a lost connection or an attempt timed out, for a request safe to send again, while the caller waits
      if (last || !repeatable || !isLostAnswer(error) || request.signal?.aborted === true) throw error;
      await pause(backoffMs(retry), policy, request.signal);
      continue;
    }
    if (last) return response;
    if (BUSY.has(response.status)) {
      await response.body?.cancel();
      await pause(retryAfterMs(response) ?? backoffMs(retry), policy, request.signal);
    } else if (response.status === TIMED_OUT && repeatable) {
      await response.body?.cancel();
      await pause(backoffMs(retry), policy, request.signal);
    } else {
      return response;
    }
  }
}

/** An idempotent method, or a POST with an Idempotency-Key, which the API answers once. */
export function isRepeatable(method: string, idempotencyKey: string | undefined): boolean {
  return IDEMPOTENT.has(method) || idempotencyKey !== undefined;
}

/** fetch's own failure (no answer: refused, reset, DNS) or an attempt that timed out; not an answer, and not a caller's abort. */
function isLostAnswer(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.name === 'TimeoutError');
}

/** Waits `ms`, at most maxDelayMs, and up to a fifth longer so that clients refused together do not come back together; ends early on the caller's abort. */
function pause(ms: number, policy: RetryPolicy, signal: AbortSignal | undefined): Promise<void> {
  const jittered = Math.min(ms, policy.maxDelayMs) * (1 + Math.random() / 5);
  return sleep(jittered, signal);
}

/** 250 ms, 500 ms, 1 s, …: a pause that grows when nothing says how long. */
function backoffMs(retry: number): number {
  return 250 * 2 ** retry;
}

/** An IMF-fixdate (RFC 9110 §5.6.7), the only date form Retry-After takes. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** `Retry-After` as seconds or as an HTTP date (RFC 9110 §10.2.3), in milliseconds from now; undefined when it is neither. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after')?.trim() ?? '';
  if (/^\d{1,9}$/.test(value)) return Number(value) * 1000;
  return HTTP_DATE.test(value) ? Math.max(0, Date.parse(value) - Date.now()) : undefined;
}
