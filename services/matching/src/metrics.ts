import type { EventEnvelope } from '@rm/contracts';
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { MatchingEngine } from './engine.js';

/** Observes, for each event, the time from its occurred_at until the combinations reflecting it were written. */
export function convergenceLag(registry: Registry): (events: readonly EventEnvelope[]) => void {
  const lag = new Histogram({
    name: 'rm_matching_convergence_lag_seconds',
    help: 'Time from an input event\'s occurred_at until the snapshots and combinations reflecting it were written',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  return (events) => {
    const now = Date.now();
    // a clock behind the publisher's would give a negative lag: count it as none
    for (const event of events) lag.observe(Math.max(0, (now - Date.parse(event.occurred_at)) / 1000));
  };
}

/** Per tenant held on this replica, at scrape time: its snapshots and combinations as last written. */
export function observeTenants(registry: Registry, engine: Pick<MatchingEngine, 'counts'>): void {
  const perTenant = (name: string, help: string, count: (counts: ReturnType<MatchingEngine['counts']>[number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['tenant'],
      registers: [registry],
      collect() {
        // tenants another replica took over disappear
        this.reset();
        for (const counts of engine.counts()) this.set({ tenant: counts.tenant }, count(counts));
      },
    });
  perTenant('rm_matching_snapshots', 'AvailableEmployee snapshots of the tenant that this replica holds', (counts) => counts.snapshots);
  perTenant('rm_matching_combinations', 'ResourceCombinations of the tenant that this replica holds', (counts) => counts.combinations);
}
