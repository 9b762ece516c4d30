import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { Unauthorized } from '@rm/service-kit';
import { healthOverview, type Probe } from '../operations/health-overview.js';
import type { Upstream } from '../upstreams.js';

export interface OperationsRoutesOptions {
  /** The operators' bearer token (ADMIN_TOKEN): not a JWT, so no token the gateway issues can match it. */
  adminToken: string;
  upstreams: readonly Upstream[];
  /** Longest wait for one service's answer. */
  timeoutMs: number;
}

/** Where operators see every service at one look; the Ingress does not route it (deploy/k8s). */
export const HEALTH_OVERVIEW_PATH = '/admin/health';

/**
 * `GET /admin/health`: each service's readiness, version and outbox age (from its /readyz and
 * /metrics), 200 when all are ready and 503 otherwise, behind ADMIN_TOKEN.
 */
export const operationsRoutes: FastifyPluginAsync<OperationsRoutesOptions> = async (app, { adminToken, upstreams, timeoutMs }) => {
  const expected = digest(adminToken);
  const isAdminToken = (authorization: string | undefined) =>
    authorization?.startsWith('Bearer ') === true && timingSafeEqual(digest(authorization.slice('Bearer '.length)), expected);

  const probes: Record<string, Probe> = {
    gateway: async (path) => {
      const response = await app.inject({ method: 'GET', url: path });
      return { status: response.statusCode, body: response.body };
    },
    ...Object.fromEntries(upstreams.map((upstream) => [upstream.service, upstreamProbe(upstream, timeoutMs)])),
  };

  app.get(HEALTH_OVERVIEW_PATH, async (request, reply) => {
    if (!isAdminToken(request.headers.authorization)) throw new Unauthorized('Bearer realm="operations"', 'The operators\' token is required.');
    const overview = await healthOverview(probes);
    reply.header('Cache-Control', 'no-store').code(overview.status === 'ok' ? 200 : 503);
    return overview;
  });
};

/** Equal-length digests, so that comparing them takes the same time whatever was sent. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function upstreamProbe(upstream: Upstream, timeoutMs: number): Probe {
  return async (path) => {
    const response = await upstream.pool.request({ method: 'GET', path, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    return { status: response.statusCode, body: await response.body.text() };
  };
}
