import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type { Logger } from '@rm/service-kit';

/**
 * API requests per tenant in the last second, counted across every gateway replica through NATS with
 * no round trip per request: each replica counts its requests in tenth-of-a-second slots and tells the
 * others what it counted at the end of every slot (core NATS); a request is admitted while the tenant's
 * count of the last second, its own and the others' as heard, is under the limit.
 *
 * Other replicas' counts arrive up to a slot late, so n replicas together may admit up to
 * (n − 1) × a tenth of the limit more in one second; a report that is lost counts as if those requests
 * had not been made. Never a refusal that the limit does not call for.
 */
export interface TenantRequestRate {
  /** Counts the request when the tenant is under its limit in the last second. */
  take(tenant: string, limit: number): RateDecision;
  /**
   * Counts `requests` the tenant was served in one call (the writes of a generation): a second's worth of
   * `limit` at a time, one per second, so they take its whole rate for `requests / limit` seconds, as
   * that many single calls would have. Other replicas hear each second's worth as it comes due, so until
   * then they tell a refused caller to retry after 1 s, where this one names the seconds the charge takes.
   */
  charge(tenant: string, requests: number, limit: number): void;
  stop(): Promise<void>;
}

export interface RateDecision {
  admitted: boolean;
  /** Requests still admitted in the current second after this one. */
  remaining: number;
  /** When refused: whole seconds until the tenant is under its limit again, charged requests included. */
  retryAfterSeconds?: number;
}

export const TENANT_REQUESTS_SUBJECT = 'rm-gateway-guard.tenant-requests';
export const WINDOW_SECONDS = 1;
const SLOT_MS = 100;
const WINDOW_SLOTS = (WINDOW_SECONDS * 1_000) / SLOT_MS;
/** Most requests one charge counts: an owner's count is trusted, but never for hours of slots. */
const MAX_CHARGE = 100_000;
/** Tenants per report: a report stays far below NATS's 1 MiB message limit however many tenants call. */
const TENANTS_PER_REPORT = 2_000;

interface Report {
  replica: string;
  counts: Record<string, number>;
}

export interface TenantRequestRateOptions {
  nc: NatsConnection;
  logger: Logger;
  /** The clock; tests move it by hand. */
  now?: () => number;
}

export function startTenantRequestRate({ nc, logger, now = Date.now }: TenantRequestRateOptions): TenantRequestRate {
  const replica = randomUUID();
  /** Requests per tenant by slot (`floor(time / SLOT_MS)`), this replica's and those reported. */
  const counted = new Map<number, Map<string, number>>();
  /** This replica's requests since its last report. */
  let unreported = new Map<string, number>();
  /** Charged requests by the slot they are due in, counted already here and told to the others when due. */
  const charged = new Map<number, Map<string, number>>();
  /** Each charged tenant's last slot with a charge, for the time until it is under its limit. */
  const furthestCharged = new Map<string, number>();

  const add = (slot: number, tenant: string, requests: number) => countIn(counted, slot, tenant, requests);

  const subscription: Subscription = nc.subscribe(TENANT_REQUESTS_SUBJECT, {
    callback: (error, message) => {
      if (error !== null) return logger.warn({ err: error }, 'tenant request counts of other gateway replicas are not heard');
      const report = reportOf(message.string());
      if (report === undefined) return logger.warn('a malformed tenant request report was ignored');
      if (report.replica === replica) return;
      const slot = Math.floor(now() / SLOT_MS);
      for (const [tenant, requests] of Object.entries(report.counts)) add(slot, tenant, requests);
    },
  });

  const reporting = setInterval(() => {
    const current = Math.floor(now() / SLOT_MS);
    const oldest = current - WINDOW_SLOTS;
    for (const slot of counted.keys()) if (slot <= oldest) counted.delete(slot);
    for (const [tenant, slot] of furthestCharged) if (slot <= oldest) furthestCharged.delete(tenant);
    for (const [slot, tenants] of charged) {
      if (slot > current) continue;
      for (const [tenant, requests] of tenants) unreported.set(tenant, (unreported.get(tenant) ?? 0) + requests);
      charged.delete(slot);
    }
    if (unreported.size === 0) return;
    const entries = [...unreported];
    unreported = new Map();
    for (let start = 0; start < entries.length; start += TENANTS_PER_REPORT) {
      const report: Report = { replica, counts: Object.fromEntries(entries.slice(start, start + TENANTS_PER_REPORT)) };
      try {
        nc.publish(TENANT_REQUESTS_SUBJECT, JSON.stringify(report));
      } catch (error) {
        logger.warn({ err: error }, 'tenant request counts could not be told to the other gateway replicas');
      }
    }
  }, SLOT_MS);
  reporting.unref();

  /** From the window that ends at `slot` (holding `requests`), the whole seconds until one holds fewer than `limit`. */
  function secondsUntilUnder(tenant: string, slot: number, requests: number, limit: number): number {
    const last = Math.max(slot, furthestCharged.get(tenant) ?? slot);
    let held = requests;
    let next = slot + 1;
    for (; next <= last + WINDOW_SLOTS; next++) {
      held += (counted.get(next)?.get(tenant) ?? 0) - (counted.get(next - WINDOW_SLOTS)?.get(tenant) ?? 0);
      if (held < limit) break;
    }
    return Math.max(1, Math.ceil(((next - slot) * SLOT_MS) / 1_000));
  }

  return {
    take(tenant, limit) {
      const slot = Math.floor(now() / SLOT_MS);
      let requests = 0;
      for (let past = slot - WINDOW_SLOTS + 1; past <= slot; past++) requests += counted.get(past)?.get(tenant) ?? 0;
      if (requests >= limit) return { admitted: false, remaining: 0, retryAfterSeconds: secondsUntilUnder(tenant, slot, requests, limit) };
      add(slot, tenant, 1);
      unreported.set(tenant, (unreported.get(tenant) ?? 0) + 1);
      return { admitted: true, remaining: limit - requests - 1 };
    },
    charge(tenant, requests, limit) {
      // a second's worth now, and one more at the start of each second after it
      const perSecond = Math.max(1, limit);
      let slot = Math.floor(now() / SLOT_MS);
      for (let left = Math.min(requests, MAX_CHARGE); left > 0; left -= perSecond, slot += WINDOW_SLOTS) {
        add(slot, tenant, Math.min(perSecond, left));
        countIn(charged, slot, tenant, Math.min(perSecond, left));
        furthestCharged.set(tenant, Math.max(slot, furthestCharged.get(tenant) ?? slot));
      }
    },
    async stop() {
      clearInterval(reporting);
      subscription.unsubscribe();
    },
  };
}

function countIn(slots: Map<number, Map<string, number>>, slot: number, tenant: string, requests: number): void {
  let counts = slots.get(slot);
  if (counts === undefined) slots.set(slot, (counts = new Map()));
  counts.set(tenant, (counts.get(tenant) ?? 0) + requests);
}

function reportOf(text: string): Report | undefined {
  try {
    const report = JSON.parse(text) as Partial<Report>;
    if (typeof report.replica !== 'string' || typeof report.counts !== 'object' || report.counts === null) return undefined;
    const counts = Object.entries(report.counts);
    return counts.every(([, requests]) => Number.isSafeInteger(requests) && requests > 0) ? { replica: report.replica, counts: report.counts } : undefined;
  } catch {
    return undefined;
  }
}
