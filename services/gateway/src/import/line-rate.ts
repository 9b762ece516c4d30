import { setTimeout as sleep } from 'node:timers/promises';
import type { TenantRequestRate } from '../limits/tenant-request-rate.js';

/** How often a waiting line asks again: the rate counts in tenths of a second (tenant-request-rate.ts). */
const RETRY_MS = 100;

export interface LineRateOptions {
  rate: Pick<TenantRequestRate, 'take'>;
  tenant: string;
  /** The tenant's requests per second, as its single calls are limited (tenant-rate-limit.ts). */
  limit: number;
  /** The import is over: a waiting line stops waiting, and its sending fails at once. */
  signal: AbortSignal;
}

/**
 * An import's lines count against its tenant's request rate as single calls do, but wait for it instead
 * of being refused: each takes a request of the rate before it is sent, in the order they ask, so that an
 * import sends no faster than single calls could, and leaves the tenant's other calls what is left.
 */
export function createLineRate({ rate, tenant, limit, signal }: LineRateOptions) {
  let queue = Promise.resolve();
  return {
    /** Resolves once the line may be sent. */
    take(): Promise<void> {
      const taken = queue.then(async () => {
        while (!signal.aborted && !rate.take(tenant, limit).admitted) await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
      });
      queue = taken;
      return taken;
    },
  };
}
