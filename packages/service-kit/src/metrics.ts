import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { withDeadline } from './deadline.js';

/** Where every service serves its metrics, at the root and without a token, like /healthz. */
export const METRICS_URL = '/metrics';

export interface MetricsRegistryOptions {
  /** The `service` label on every metric. */
  service: string;
  /** The `version` label of rm_build_info. */
  version: string;
}

/**
 * A service's own registry, with Node's default metrics and rm_build_info; never prom-client's global
 * one, since tests run several services in one process.
 */
export function createMetricsRegistry({ service, version }: MetricsRegistryOptions): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const buildInfo = new Gauge({
    name: 'rm_build_info',
    help: 'Always 1; its version label is the running version',
    labelNames: ['version'],
    registers: [registry],
  });
  buildInfo.set({ version }, 1);
  return registry;
}

/** Counts and times every request by its route pattern, and serves the registry at /metrics. */
export function serveMetrics(app: FastifyInstance, registry: Registry): void {
  const labelNames = ['method', 'route', 'status_code'] as const;
  const registers = [registry];
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers });
  const durations = new Histogram({ name: 'http_request_duration_seconds', help: 'Time to answer an HTTP request', labelNames, registers });
  app.addHook('onResponse', async (request, reply) => {
    // the route's pattern, never the raw URL, which would make a series per resource id
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) };
    requests.inc(labels);
    durations.observe(labels, reply.elapsedTime / 1000);
  });
  app.get(METRICS_URL, { schema: { response: { 200: { type: 'string' } } } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}

export interface UpGaugeOptions {
  registry: Registry;
  name: string;
  help: string;
  check: () => Promise<unknown>;
  timeoutMs: number;
}

/**
 * A gauge that is 1 when `check` resolves within `timeoutMs` at scrape time, else 0: a dependency that
 * is away or hangs never holds up the scrape.
 */
export function upGauge(options: UpGaugeOptions): Gauge {
  const { registry, name, help, check, timeoutMs } = options;
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(await withDeadline(check(), timeoutMs).then(() => 1, () => 0));
    },
  });
}
