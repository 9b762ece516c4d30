/** When deliveries are tried again, and when the service stops trying. */
export interface RetryPolicy {
  /** The first pause; each next one is 4 times the last, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** No attempt is made later than this after the first. */
  retryForMs: number;
}

/** Standard Webhooks' advice: about a day of attempts, spaced wider and wider. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { firstDelayMs: 5_000, maxDelayMs: 6 * 60 * 60 * 1000, retryForMs: 24 * 60 * 60 * 1000 };

/**
 * When to try a delivery again after its `attempts`-th attempt failed, or undefined to give up: 5 s,
 * 20 s, 80 s, … up to 6 h, each ±25 % (`random` in [0, 1)) so that the deliveries of one outage do not
 * all come back at once; the last attempt falls at `retryForMs` after the first.
 */
export function nextAttemptAt(policy: RetryPolicy, firstAttemptAt: Date, attempts: number, now: Date, random: number): Date | undefined {
  const end = firstAttemptAt.getTime() + policy.retryForMs;
  if (now.getTime() >= end) return undefined;
  const delay = Math.min(policy.firstDelayMs * 4 ** (attempts - 1), policy.maxDelayMs) * (0.75 + random / 2);
  return new Date(Math.min(now.getTime() + delay, end));
}
