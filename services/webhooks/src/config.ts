import type { ConfigSpec } from '@rm/service-kit';

const HOUR = 60 * 60 * 1000;

/** The service's own variables, beside the common ones (service-kit's serviceConfigSpec). */
export const webhooksConfigSpec = {
  /**
   * `public`: deliveries go only to https URLs whose host resolves to public addresses (checked on the
   * addresses connected to). `any`: a development stack, whose receivers run beside it.
   */
  WEBHOOK_TARGETS: { type: 'enum', values: ['public', 'any'], default: 'public' },
  /** One attempt's limit to connect, for the answer's headers, and for each part of its body. */
  WEBHOOK_TIMEOUT_MS: { type: 'duration-ms', min: 100, max: 60_000, default: 10_000 },
  /** Bytes of an answer read; the rest is cut off. */
  WEBHOOK_MAX_RESPONSE_BYTES: { type: 'int', min: 0, max: 1024 * 1024, default: 64 * 1024 },
  /** The first pause before a failed delivery is tried again; each next one is 4 times longer, up to 6 hours. */
  WEBHOOK_RETRY_FIRST_DELAY_MS: { type: 'duration-ms', min: 10, default: 5_000 },
  /** No attempt is made later than this after a delivery was made (its event stored), tried or not. */
  WEBHOOK_RETRY_FOR_MS: { type: 'duration-ms', min: 100, default: 24 * HOUR },
  /**
   * Deliveries one subscription may have pending; beyond, its oldest waiting ones are dropped (logged as
   * `dropped`, counted by rm_webhook_deliveries_dropped_total): what a dead receiver costs in memory and in
   * the database, whatever the rate of changes. The default holds a day's outage at 7 changes a minute.
   */
  WEBHOOK_MAX_PENDING_PER_SUBSCRIPTION: { type: 'int', min: 1, max: 1_000_000, default: 10_000 },
  /** A subscription whose every attempt failed for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_MS: { type: 'duration-ms', min: 100, default: 72 * HOUR },
  /**
   * Attempts under way at once, and of one tenant at once. An attempt waiting on a receiver costs a socket, not
   * CPU: the total is large enough that tenants whose receivers all hang (each holding its own share until the
   * timeout) still leave room for the others.
   */
  WEBHOOK_CONCURRENCY: { type: 'int', min: 1, max: 10_000, default: 500 },
  WEBHOOK_CONCURRENCY_PER_TENANT: { type: 'int', min: 1, max: 1_000, default: 4 },
} as const satisfies ConfigSpec;
