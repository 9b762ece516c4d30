/** What the overview asks a service: a path at its root, answered with a status and a text body. */
export type Probe = (path: string) => Promise<{ status: number; body: string }>;

export interface ServiceHealth {
  service: string;
  ready: boolean;
  /** Its readiness checks by name (`ok`/`failed`), when it answered /readyz with them. */
  checks?: Record<string, string>;
  /** Why it could not be asked, when it did not answer. */
  error?: string;
  /** From its `rm_build_info`; null when its metrics could not be read. */
  version: string | null;
  /** Events written and not yet published, and the age of the oldest of them; null when unknown. */
  outbox: { backlog: number | null; oldestEventAgeSeconds: number | null };
}

export interface HealthOverview {
  /** `ok` when every service is ready. */
  status: 'ok' | 'degraded';
  services: ServiceHealth[];
}

/** Asks every service for its readiness and metrics side by side; one that does not answer is listed as not ready. */
export async function healthOverview(probes: Record<string, Probe>): Promise<HealthOverview> {
  const services = await Promise.all(Object.entries(probes).map(([service, probe]) => serviceHealth(service, probe)));
  return { status: services.every((health) => health.ready) ? 'ok' : 'degraded', services };
}

async function serviceHealth(service: string, probe: Probe): Promise<ServiceHealth> {
  const [readiness, metrics] = await Promise.allSettled([probe('/readyz'), probe('/metrics')]);
  const exposition = metrics.status === 'fulfilled' && metrics.value.status === 200 ? metrics.value.body : undefined;
  const known = {
    version: exposition === undefined ? null : labelOf(exposition, 'rm_build_info', 'version'),
    outbox: {
      backlog: exposition === undefined ? null : valueOf(exposition, 'rm_outbox_backlog_events'),
      oldestEventAgeSeconds: exposition === undefined ? null : valueOf(exposition, 'rm_outbox_oldest_event_age_seconds'),
    },
  };
  if (readiness.status === 'rejected') return { service, ready: false, error: messageOf(readiness.reason), ...known };
  const checks = checksOf(readiness.value.body);
  return { service, ready: readiness.value.status === 200, ...(checks === undefined ? {} : { checks }), ...known };
}

/** `/readyz` answers `{status, checks}` when ready and a problem with `checks` when not. */
function checksOf(body: string): Record<string, string> | undefined {
  try {
    const { checks } = JSON.parse(body) as { checks?: unknown };
    return typeof checks === 'object' && checks !== null ? (checks as Record<string, string>) : undefined;
  } catch {
    return undefined;
  }
}

/** The first sample of a metric in Prometheus' text format: `name{labels} value`. */
function sampleOf(exposition: string, name: string): { labels: string; value: string } | undefined {
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (match?.[1] === name) return { labels: match[2] ?? '', value: match[3]! };
  }
  return undefined;
}

function valueOf(exposition: string, name: string): number | null {
  const value = Number(sampleOf(exposition, name)?.value);
  return Number.isFinite(value) ? value : null;
}

function labelOf(exposition: string, name: string, label: string): string | null {
  const labels = sampleOf(exposition, name)?.labels ?? '';
  return new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`).exec(labels)?.[1] ?? null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
