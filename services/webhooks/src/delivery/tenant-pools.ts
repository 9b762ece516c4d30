/** A connection pool: an undici Agent in the sender, anything closable in a test. */
export interface ClosablePool {
  close(): Promise<unknown>;
}

export interface TenantPoolsOptions {
  /**
   * Pools kept at most. The sender keeps as many as attempts may be under way at once: a tenant needs a new
   * pool only while it has no attempt under way, so one of the others is then idle and can be closed.
   */
  maxPools: number;
  /** A pool without attempts for this long is closed. */
  idleMs: number;
}

interface TenantPool<Pool> {
  pool: Pool;
  attempts: number;
  idleSince: number;
}

/**
 * A pool of connections per tenant, so that a tenant whose receivers hang holds its own connections only,
 * even to a host and port that other tenants' receivers share. A pool is opened on a tenant's first
 * attempt and closed once idle for `idleMs` (looked at every `idleMs`), or sooner when `maxPools` are open (the one idle longest).
 */
export function createTenantPools<Pool extends ClosablePool>(open: () => Pool, { maxPools, idleMs }: TenantPoolsOptions) {
  // in the order of their last use, so that the first idle one is the one idle longest
  const pools = new Map<string, TenantPool<Pool>>();
  const sweeper = setInterval(closeIdle, idleMs);
  sweeper.unref();

  function closePool(tenant: string, { pool }: TenantPool<Pool>): void {
    pools.delete(tenant);
    // an idle pool has no request left to wait for: its keep-alive connections end, and nothing else does
    void pool.close().catch(() => undefined);
  }

  function closeIdle(): void {
    const now = Date.now();
    for (const [tenant, entry] of pools) if (entry.attempts === 0 && now - entry.idleSince >= idleMs) closePool(tenant, entry);
  }

  function makeRoom(): void {
    if (pools.size < maxPools) return;
    for (const [tenant, entry] of pools) {
      if (entry.attempts > 0) continue;
      closePool(tenant, entry);
      return;
    }
  }

  function take(tenant: string): TenantPool<Pool> {
    let entry = pools.get(tenant);
    if (entry === undefined) {
      makeRoom();
      entry = { pool: open(), attempts: 0, idleSince: Date.now() };
    }
    pools.delete(tenant);
    pools.set(tenant, entry);
    return entry;
  }

  return {
    /** Runs `attempt` over the tenant's pool. */
    async use<T>(tenant: string, attempt: (pool: Pool) => Promise<T>): Promise<T> {
      const entry = take(tenant);
      entry.attempts += 1;
      try {
        return await attempt(entry.pool);
      } finally {
        entry.attempts -= 1;
        entry.idleSince = Date.now();
      }
    },
    async close(): Promise<void> {
      clearInterval(sweeper);
      const closing = [...pools.values()];
      pools.clear();
      await Promise.all(closing.map(({ pool }) => pool.close()));
    },
  };
}
