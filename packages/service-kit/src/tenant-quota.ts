import type { TenantLimits } from '@rm/contracts';
import type { AuthContext } from './auth.js';
import { HttpProblem } from './errors.js';

/** 409: the write would store one more record than the tenant's quota of its kind. */
export class QuotaReached extends HttpProblem {
  constructor(kind: string, quota: number) {
    super({
      status: 409,
      title: 'Quota reached',
      detail: `This tenant stores ${quota} ${kind}, its quota; delete some first, or ask the operator for a larger quota.`,
      code: 'RM_QUOTA_REACHED',
      extensions: { quota },
    });
  }
}

/**
 * A tenant's quota of one kind of record, as its token states it (`limits`, set by the gateway): a write
 * that would store one more than the quota is refused. Counting a tenant's records reads them all, so a
 * replica counts a tenant's again only every `recountMs`, and once a second while the tenant is at its
 * quota (deletes free room); in between it adds the records it creates. Replicas together may pass a
 * quota by the creates of one interval, which a limit on storage can bear.
 */
export interface TenantQuota {
  /** Refuses the write (409) when the tenant is at its quota and `adds` says that the write adds a record. */
  admit(auth: AuthContext, adds: () => Promise<boolean>): Promise<void>;
  /**
   * For a write of many: counts the `records` it adds, if they all fit in the tenant's quota; undefined (and
   * nothing counted) if not. Counted before the write, so that writes side by side cannot pass the quota
   * together; one that is then refused gives them back, one whose outcome is unknown keeps them.
   */
  reserve(auth: AuthContext, records: number): Promise<Reservation | undefined>;
  /** Counts a record that a write of the tenant added. */
  added(tenant: string): void;
}

/** Records counted for a write of many before it ran. */
export interface Reservation {
  /** Gives them back: the write was refused. From the count they were added to, not one read since, which cannot hold them. */
  release(): void;
}

export interface TenantQuotaOptions {
  /** Which of the token's limits: `employees`. */
  limit: keyof TenantLimits;
  /** Names the records in the 409: `employees`. */
  kind: string;
  /** The tenant's records now. */
  count(tenant: string): Promise<number>;
  recountMs?: number;
  now?: () => number;
}

interface Counted {
  /** When the count was read. */
  at: number;
  records: number;
}

const RECOUNT_MS = 30_000;
const RECOUNT_AT_QUOTA_MS = 1_000;
/** Tenants whose counts a replica keeps; the least recently counted go first. */
const COUNTED_TENANTS = 10_000;

export function createTenantQuota({ limit, kind, count, recountMs = RECOUNT_MS, now = Date.now }: TenantQuotaOptions): TenantQuota {
  const counted = new Map<string, Counted>();
  /** Counts under way: writes of a tenant that arrive meanwhile wait for the same one (a count reads every record). */
  const counting = new Map<string, Promise<Counted>>();

  function recount(tenant: string): Promise<Counted> {
    const underWay = counting.get(tenant);
    if (underWay !== undefined) return underWay;
    const counts = (async () => {
      const entry = { at: now(), records: await count(tenant) };
      counted.delete(tenant);
      counted.set(tenant, entry);
      if (counted.size > COUNTED_TENANTS) counted.delete(counted.keys().next().value as string);
      return entry;
    })().finally(() => counting.delete(tenant));
    counting.set(tenant, counts);
    return counts;
  }

  /** The tenant's count, read again when it is old, or at the quota for a second (deletes free room). */
  async function countOf(tenant: string, quota: number): Promise<Counted> {
    const entry = counted.get(tenant);
    const age = entry === undefined ? Infinity : now() - entry.at;
    if (entry === undefined || age >= recountMs || (entry.records >= quota && age >= RECOUNT_AT_QUOTA_MS)) return recount(tenant);
    return entry;
  }

  return {
    async admit({ tenant, limits }, adds) {
      const quota = limits?.[limit];
      if (quota === undefined) return;
      if ((await countOf(tenant, quota)).records >= quota && (await adds())) throw new QuotaReached(kind, quota);
    },
    async reserve({ tenant, limits }, records) {
      const quota = limits?.[limit];
      if (quota === undefined) return { release: () => undefined };
      const entry = await countOf(tenant, quota);
      if (entry.records + records > quota) return undefined;
      entry.records += records;
      return { release: () => void (entry.records -= records) };
    },
    added(tenant) {
      const known = counted.get(tenant);
      if (known !== undefined) known.records += 1;
    },
  };
}
