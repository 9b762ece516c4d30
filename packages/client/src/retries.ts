import { setTimeout as sleep } from 'node:timers/promises';

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
      // the last attempt, a request not safe to send again, or a caller that gave up
      if (last || !repeatable || request.signal?.aborted === true) throw error;
      await sleep(Math.min(backoffMs(retry), policy.maxDelayMs));
      continue;
    }
    if (last) return response;
    if (BUSY.has(response.status)) {
      await response.body?.cancel();
      await sleep(Math.min(retryAfterMs(response) ?? backoffMs(retry), policy.maxDelayMs));
    } else if (response.status === TIMED_OUT && repeatable) {
      await response.body?.cancel();
      await sleep(Math.min(backoffMs(retry), policy.maxDelayMs));
    } else {
      return response;
    }
  }
}

/** An idempotent method, or a POST with an Idempotency-Key, which the API answers once. */
export function isRepeatable(method: string, idempotencyKey: string | undefined): boolean {
  return IDEMPOTENT.has(method) || idempotencyKey !== undefined;
}

/** 250 ms, 500 ms, 1 s, …: a pause that grows when nothing says how long. */
function backoffMs(retry: number): number {
  return 250 * 2 ** retry;
}

/** `Retry-After` as seconds or as an HTTP date (RFC 9110 §10.2.3), in milliseconds from now. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
