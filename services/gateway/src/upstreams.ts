import { Pool } from 'undici';

/** Which service owns which paths under the base URL (DESIGN §2), and the variable naming its address. */
export const PATH_OWNERS = [
  { service: 'employees', variable: 'UPSTREAM_EMPLOYEES_URL', paths: ['/employee', '/availability-generation'] },
  { service: 'transport-resources', variable: 'UPSTREAM_TRANSPORT_RESOURCES_URL', paths: ['/transport-resource'] },
  { service: 'home-bases', variable: 'UPSTREAM_HOME_BASES_URL', paths: ['/home-base', '/resource-overview'] },
  { service: 'deployments', variable: 'UPSTREAM_DEPLOYMENTS_URL', paths: ['/deployment', '/means'] },
  { service: 'matching', variable: 'UPSTREAM_MATCHING_URL', paths: ['/available-employee', '/resource-combination'] },
  { service: 'webhooks', variable: 'UPSTREAM_WEBHOOKS_URL', paths: ['/webhook-subscription'] },
] as const;

export type UpstreamVariable = (typeof PATH_OWNERS)[number]['variable'];

/** A service the gateway forwards to, over pooled keep-alive connections. */
export interface Upstream {
  service: string;
  origin: string;
  /** Path prefixes under the base URL: `/employee` covers `/employee` and `/employee/…`. */
  paths: readonly string[];
  pool: Pool;
}

export interface UpstreamOptions {
  connections: number;
  timeoutMs: number;
}

/** One pool per configured owner; owners without an address are left out, and so are their paths. */
export function createUpstreams(addresses: Partial<Record<UpstreamVariable, string | undefined>>, { connections, timeoutMs }: UpstreamOptions): Upstream[] {
  return PATH_OWNERS.flatMap(({ service, variable, paths }) => {
    const address = addresses[variable];
    if (address === undefined) return [];
    const origin = new URL(address).origin;
    const pool = new Pool(origin, { connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: Math.min(timeoutMs, 10_000) });
    return [{ service, origin, paths, pool }];
  });
}

export async function closeUpstreams(upstreams: readonly Upstream[]): Promise<void> {
  await Promise.all(upstreams.map((upstream) => upstream.pool.close()));
}
