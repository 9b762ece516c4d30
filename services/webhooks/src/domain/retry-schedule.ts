/** When deliveries are tried again, and when the service stops trying. */
export interface RetryPolicy {
  /** The first pause; each next one is 4 times the last, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** No attempt is made later than this after the delivery was made (its event stored), tried or not. */
  retryForMs: number;
}

/** Standard Webhooks' advice: about a day of attempts, spaced wider and wider. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { firstDelayMs: 5_000, maxDelayMs: 6 * 60 * 60 * 1000, retryForMs: 24 * 60 * 60 * 1000 };

/**
 * When to try a delivery again after its `attempts`-th attempt failed, or undefined to give up: 5 s,
 * 20 s, 80 s, … up to 6 h, each ±25 % (`random` in [0, 1)) so that the deliveries of one outage do not
 * all come back at once; the last attempt falls at `retryForMs` after the delivery was made.
 */
export function nextAttemptAt(policy: RetryPolicy, createdAt: Date, attempts: number, now: Date, random: number): Date | undefined {
  const end = createdAt.getTime() + policy.retryForMs;
  if (now.getTime() >= end) return undefined;
  const delay = Math.min(policy.firstDelayMs * 4 ** (attempts - 1), policy.maxDelayMs) * (0.75 + random / 2);
  return new Date(Math.min(now.getTime() + delay, end));
}

/**
 * Whether a delivery that comes up `now` for the attempt planned at `plannedAt` is past its retry period
 * and is given up untried: it waited that long for a free attempt of its tenant (a backlog behind slow
 * receivers), or for the service. The last attempt, planned at the very end of the period, is still made.
 */
export function isExpired(policy: RetryPolicy, createdAt: Date, plannedAt: Date, now: Date): boolean {
  const end = createdAt.getTime() + policy.retryForMs;
  return plannedAt.getTime() < end && now.getTime() >= end;
}
