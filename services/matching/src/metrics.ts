import { createHmac } from 'node:crypto';
import type { EventEnvelope } from '@rm/contracts';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { MatchingEngine } from './engine.js';
import type { TimedSolve } from './resolve/exact-worker.js';

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

/**
 * The `tenant` label of the per-tenant series: a keyed digest of the tenant id, never the id, since
 * /metrics answers without a token. The same tenant has the same label on every replica (the key is
 * CURSOR_SECRET, the same everywhere); the engine's log lines name both (runbook).
 */
export function tenantLabeller(key: string): (tenant: string) => string {
  return (tenant) => createHmac('sha256', key).update(`metrics-label:${tenant}`).digest('hex').slice(0, 16);
}

/**
 * Per tenant held on this replica, at scrape time: its snapshots and combinations as last written, and
 * whether it is refused; and how many have a re-solve due or running.
 */
export function observeTenants(
  registry: Registry,
  engine: Pick<MatchingEngine, 'counts' | 'refused' | 'resolvesPending'>,
  label: (tenant: string) => string,
): void {
  const perTenant = (name: string, help: string, count: (counts: ReturnType<MatchingEngine['counts']>[number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['tenant'],
      registers: [registry],
      collect() {
        // tenants another replica took over disappear
        this.reset();
        for (const counts of engine.counts()) this.set({ tenant: label(counts.tenant) }, count(counts));
      },
    });
  perTenant('rm_matching_snapshots', 'AvailableEmployee snapshots of the tenant that this replica holds', (counts) => counts.snapshots);
  perTenant('rm_matching_combinations', 'ResourceCombinations of the tenant that this replica holds', (counts) => counts.combinations);
  new Gauge({
    name: 'rm_matching_tenant_refused',
    help: 'A tenant with more inputs than MATCHING_TENANT_MAX_INPUTS: its inputs are recorded, but it is not matched (1)',
    labelNames: ['tenant'],
    registers: [registry],
    collect() {
      this.reset();
      for (const tenant of engine.refused()) this.set({ tenant: label(tenant) }, 1);
    },
  });
  new Gauge({
    name: 'rm_matching_resolves_pending',
    help: 'Tenants on this replica whose exact re-solve is due (after their quiet time) or running',
    registers: [registry],
    collect() {
      this.set(engine.resolvesPending());
    },
  });
}

/** The background re-solve's queue, time, and what became of each location component (exact.ts ExactStatus). */
export function resolveObserver(registry: Registry): (tenant: string, solved: Partial<TimedSolve>) => void {
  const queued = new Histogram({
    name: 'rm_matching_resolve_queue_seconds',
    help: 'Time a part of a tenant\'s exact re-solve waited for the solver, behind the parts of other tenants',
    buckets: [0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [registry],
  });
  const ran = new Histogram({
    name: 'rm_matching_resolve_seconds',
    help: 'Time one part of a tenant\'s exact re-solve took (its location components, up to 2,000 shifts)',
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [registry],
  });
  const components = new Counter({
    name: 'rm_matching_exact_components_total',
    help: 'Location components the exact re-solve took up, by outcome: optimal, time-limit, trivial, too-large (left to the incremental matcher), failed',
    labelNames: ['status'],
    registers: [registry],
  });
  return (_tenant, solved) => {
    if (solved.queuedSeconds !== undefined) queued.observe(solved.queuedSeconds);
    if (solved.solveSeconds !== undefined) ran.observe(solved.solveSeconds);
    for (const { status } of solved.components ?? []) components.inc({ status });
  };
}
