import { OPENAPI_PATHS_URL, type Logger, type OpenApiPaths } from '@rm/service-kit';
import type { Upstream } from '../upstreams.js';
import { CONVENTION_COMPONENTS } from './conventions.js';
import { describedOperation } from './described-operation.js';
import { GATEWAY_PATHS, GATEWAY_SCHEMAS } from './gateway-paths.js';
import { TAGS } from './operations.js';
import { PROBLEM_COMPONENTS } from './problems.js';

export interface ApiDocumentOptions {
  upstreams: readonly Upstream[];
  basePath: string;
  tokenPath: string;
  /** How long an owner's part is used before it is asked again. */
  refreshMs: number;
  timeoutMs: number;
  logger: Logger;
}

interface Part {
  paths: OpenApiPaths;
  fetchedAt: number;
}

/**
 * The one OpenAPI 3.1 document of the v1 API: each owner's routes (with their contract schemas), as
 * the owner lists them at OPENAPI_PATHS_URL, described for integrators (described-operation.ts),
 * under the `clientCredentials` security scheme. An owner that has never answered is left out, and
 * its paths appear once it does (asked again every refreshMs); one that stops answering keeps the
 * part it gave last.
 */
export function createApiDocument({ upstreams, basePath, tokenPath, refreshMs, timeoutMs, logger }: ApiDocumentOptions) {
  const parts = new Map<string, Part>();
  const inFlight = new Map<string, Promise<void>>();

  async function fetchPart(upstream: Upstream): Promise<void> {
    try {
      const { statusCode, body } = await upstream.pool.request({ method: 'GET', path: OPENAPI_PATHS_URL, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      if (statusCode !== 200) {
        await body.dump();
        throw new Error(`answered ${statusCode}`);
      }
      const { paths } = (await body.json()) as { paths: OpenApiPaths };
      parts.set(upstream.service, { paths: ownedPaths(upstream, paths), fetchedAt: Date.now() });
    } catch (error) {
      // asked again after refreshMs, not on every request: the document is public
      parts.set(upstream.service, { paths: parts.get(upstream.service)?.paths ?? {}, fetchedAt: Date.now() });
      logger.warn({ err: error, service: upstream.service }, 'the API description of a service could not be read; its last one is used');
    }
  }

  function refreshed(upstream: Upstream): Promise<void> {
    const part = parts.get(upstream.service);
    if (part !== undefined && Date.now() - part.fetchedAt < refreshMs) return Promise.resolve();
    let pending = inFlight.get(upstream.service);
    if (pending === undefined) {
      pending = fetchPart(upstream).finally(() => inFlight.delete(upstream.service));
      inFlight.set(upstream.service, pending);
    }
    return pending;
  }

  return {
    /** The document as a caller reaching the gateway at `origin` uses it. */
    async document(origin: string): Promise<Record<string, unknown>> {
      await Promise.all(upstreams.map(refreshed));
      const merged: OpenApiPaths = { ...GATEWAY_PATHS };
      for (const upstream of upstreams) Object.assign(merged, parts.get(upstream.service)?.paths);
      const paths = Object.entries(merged)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([path, item]) => [path, Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, describedOperation(path, method, operation)]))]);
      return {
        openapi: '3.1.0',
        info: {
          title: 'Resource Management Service Interface (Resources API)',
          version: '1.30.1',
          summary: 'Employees, their shifts and availabilities, transport resources and home bases, for transport planning.',
          description:
            'Every operation needs a bearer token from the token URL (OAuth 2.0 client credentials). The docs page ' +
            `(${origin}/docs) has a getting-started guide: paging, errors and violations, ETag and If-Match, Prefer, ` +
            'Idempotency-Key and rate limits.',
          contact: { name: 'Resource management API support', url: `${origin}/docs` },
          license: { name: 'Proprietary: for the integrations of licensed customers', url: `${origin}/docs#licence` },
        },
        servers: [{ url: `${origin}${basePath}` }],
        security: [{ clientCredentials: [] }],
        tags: TAGS,
        components: {
          securitySchemes: { clientCredentials: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${origin}${tokenPath}`, scopes: {} } } } },
          ...PROBLEM_COMPONENTS,
          schemas: { ...PROBLEM_COMPONENTS.schemas, ...GATEWAY_SCHEMAS },
          ...CONVENTION_COMPONENTS,
        },
        paths: Object.fromEntries(paths),
      };
    },
  };
}

/** Only what the owner owns (and `/ping`, which every service answers): a service cannot describe another's paths. */
function ownedPaths(upstream: Upstream, paths: OpenApiPaths): OpenApiPaths {
  return Object.fromEntries(
    Object.entries(paths).filter(([path]) => path === '/ping' || upstream.paths.some((owned) => path === owned || path.startsWith(`${owned}/`))),
  );
}
