import proxyAddr from '@fastify/proxy-addr';
import { trace, type Tracer } from '@opentelemetry/api';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type FastifySchema } from 'fastify';
import type { Registry } from 'prom-client';
import { v7 as uuidv7 } from 'uuid';
import { createAjv } from '@rm/contracts';
import { createAuthenticateHook, type TokenVerifier } from './auth.js';
import { requireDecimalNumbers } from './decimal-numbers.js';
import { MethodNotAllowed, NotFound } from './errors.js';
import { createClientErrorHandler, refuseBadHostAndClosingRequests } from './framework-errors.js';
import type { ReadinessCheck } from './health.js';
import { acceptStrictJsonBodies } from './json-body.js';
import { createProblemReplier, sendProblem } from './problem-reply.js';
import { createOpenApiCollector } from './openapi.js';
import { createRouteIndex } from './route-index.js';
import { traceRequests } from './request-tracing.js';
import { withDeadline } from './deadline.js';
import { serveMetrics } from './metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Public base path of the API (PUBLIC_BASE_PATH); `resourceUrl` builds on it. */
    readonly publicBasePath: string;
    /** From now on /readyz answers 503; the graceful shutdown calls it first. */
    markShuttingDown(): void;
    /** Whether a peer address is one of the configured proxies (TRUST_PROXY). */
    isTrustedProxy(address: string | undefined): boolean;
  }
}

const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** How often Node looks for connections past their headers or request timeout. */
const CONNECTIONS_CHECK_MS = 1_000;

export interface ServiceOptions {
  logger: FastifyBaseLogger;
  verifyToken: TokenVerifier;
  /** Named checks run by /readyz, such as `{ mongodb: mongoReadiness(db), nats: natsReadiness(nc) }`. */
  readiness: Record<string, ReadinessCheck>;
  /** Prefix of every API route (PUBLIC_BASE_PATH). */
  basePath: string;
  bodyLimit: number;
  requestTimeout: number;
  /** Longest wait for a request's headers (default 10 s): a connection that drips them is closed after it. */
  headersTimeout?: number;
  /** How long one readiness check may take before it counts as failed. */
  readinessTimeout?: number;
  /**
   * The proxies whose `X-Forwarded-*` headers are believed, by the address of the immediate peer
   * (TRUST_PROXY: the gateway, or the ingress in front of it). Default: nobody.
   */
  trustProxy?: false | readonly string[];
  /** The service's routes, registered under `basePath` behind authentication. */
  routes: FastifyPluginAsync;
  /** Routes at the root without authentication (the gateway's token endpoint and key set). */
  publicRoutes?: FastifyPluginAsync;
  /** Counts and times requests into this registry and serves it at /metrics (createMetricsRegistry). */
  metrics?: Registry;
  /** Makes a server span per request (default: the API's global tracer, a no-op unless a provider was registered). */
  tracer?: Tracer;
}

/** Where a service lists its API routes as OpenAPI path items (no token: it is what the docs show anyway). */
export const OPENAPI_PATHS_URL = '/openapi-paths.json';

const REQUEST_ID = /^[A-Za-z0-9._~:/+=@-]{1,128}$/;
/** Business ids in paths may be 512 characters; longer ones get a 400 from the schema, not a 404. */
const MAX_PARAM_LENGTH = 2_048;

/**
 * Builds a service's Fastify instance without listening or doing I/O: validation with our ajv
 * setup, problem+json errors, request ids, health and readiness probes, and the service's routes
 * under `basePath` behind bearer-token authentication.
 */
export function createService({
  logger,
  verifyToken,
  readiness,
  basePath,
  bodyLimit,
  requestTimeout,
  headersTimeout = DEFAULT_HEADERS_TIMEOUT_MS,
  readinessTimeout = 2_000,
  trustProxy = false,
  routes,
  publicRoutes,
  metrics,
  tracer = trace.getTracer('@rm/service-kit'),
}: ServiceOptions): FastifyInstance {
  // One trust function for fastify (request.ip, .protocol, .host) and for X-Forwarded-Prefix.
  const trustsPeer = proxyAddr.compile(trustProxy === false ? [] : [...trustProxy]);
  const replyWithProblem = createProblemReplier({ bodyLimit, maxParamLength: MAX_PARAM_LENGTH });
  const app = Fastify({
    loggerInstance: logger,
    trustProxy: trustsPeer,
    bodyLimit,
    requestTimeout,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Errors fastify and Node raise outside a route are answered as problems too (framework-errors.ts).
    frameworkErrors: replyWithProblem,
    clientErrorHandler: createClientErrorHandler(logger),
    return503OnClosing: false,
    // Node's own defaults hold a connection that drips its headers for up to a minute (headers within
    // 60 s, checked every 30 s); slowloris then holds a socket and its buffers that long per connection.
    http: { requireHostHeader: false, headersTimeout, connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
    // On close, idle keep-alive connections are dropped at once; busy ones close after their
    // response (see the onSend hook below).
    forceCloseConnections: 'idle',
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidv7();
    },
  });
  // first of the hooks: every later one, the route and its logs run in the request's span
  traceRequests(app, tracer);

  // Bodies keep their JSON types; query strings, params and headers are text and are coerced.
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return bodyAjv.compile(schema);
    const textSchema = httpPart === 'headers' ? lowerCaseHeaderNames(schema) : schema;
    return requireDecimalNumbers(textAjv.compile(textSchema), textSchema);
  });

  acceptStrictJsonBodies(app);
  app.setErrorHandler(replyWithProblem);
  const routeIndex = createRouteIndex({ maxParamLength: MAX_PARAM_LENGTH });
  app.addHook('onRoute', routeIndex.record);
  const openApi = createOpenApiCollector(basePath);
  app.addHook('onRoute', openApi.record);
  app.setNotFoundHandler(async (request) => {
    const path = request.url.split('?')[0];
    const allowed = routeIndex.allowedMethods(request.url);
    // A route of this very method that found nothing (callNotFound) is a 404, not a 405.
    if (allowed.length > 0 && !allowed.includes(request.method)) throw new MethodNotAllowed(`${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`, allowed);
    throw new NotFound(`There is no ${request.method} ${path}`);
  });

  if (metrics !== undefined) serveMetrics(app, metrics);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  refuseBadHostAndClosingRequests(app);

  let shuttingDown = false;
  app.decorate('publicBasePath', basePath);
  app.decorate('isTrustedProxy', (address: string | undefined) => address !== undefined && trustsPeer(address, 0));
  app.decorate('markShuttingDown', () => {
    shuttingDown = true;
  });
  // Without this, a keep-alive connection whose request was in flight at close stays open until
  // its keep-alive timeout, and app.close() waits for it.
  app.addHook('onSend', async (_request, reply) => {
    if (shuttingDown) reply.header('Connection', 'close');
  });

  app.get('/healthz', { schema: { response: { 200: statusSchema } } }, async () => ({ status: 'ok' }));
  // This service's part of the v1 API document; the gateway merges every owner's part into one.
  app.get(OPENAPI_PATHS_URL, async () => ({ paths: openApi.paths() }));

  const checks = Object.entries(readiness);
  app.get('/readyz', { schema: { response: { 200: readySchema, 503: notReadySchema } } }, async (request, reply) => {
    if (shuttingDown) {
      reply.code(503);
      return sendProblem(reply, { title: 'Service Unavailable', status: 503, detail: 'The service is shutting down.' });
    }
    const results = await Promise.all(
      checks.map(async ([name, check]) => {
        try {
          await withDeadline(check(), readinessTimeout);
          return [name, 'ok'] as const;
        } catch (error) {
          request.log.warn({ check: name, err: error }, 'readiness check failed');
          return [name, 'failed'] as const;
        }
      }),
    );
    const failed = results.filter(([, result]) => result !== 'ok').map(([name]) => name);
    const outcome = Object.fromEntries(results);
    if (failed.length === 0) return { status: 'ready', checks: outcome };
    reply.code(503);
    return sendProblem(reply, { title: 'Service Unavailable', status: 503, detail: `Not ready: ${failed.join(', ')}`, checks: outcome });
  });

  if (publicRoutes !== undefined) app.register(publicRoutes);
  const authenticate = createAuthenticateHook(verifyToken);
  app.decorateRequest('auth', null as never);
  app.register(
    async (api) => {
      api.addHook('onRequest', authenticate);
      api.get('/ping', { schema: { response: { 200: { type: 'string' } } } }, async (_request, reply) => reply.type('text/plain').send('pong'));
      await api.register(routes);
    },
    { prefix: basePath },
  );

  return app;
}

/**
 * Node gives header names in lower case; fastify adapts header schemas to that only for its own
 * compiler, so a custom one has to do it (`X-Count` in a schema would never be checked).
 */
function lowerCaseHeaderNames(schema: FastifySchema): FastifySchema {
  const { properties, required } = schema as { properties?: Record<string, unknown>; required?: string[] };
  return {
    ...schema,
    ...(properties && { properties: Object.fromEntries(Object.entries(properties).map(([name, value]) => [name.toLowerCase(), value])) }),
    ...(required && { required: required.map((name) => name.toLowerCase()) }),
  };
}

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' } },
  required: ['status'],
  additionalProperties: false,
} as const;

const readySchema = {
  type: 'object',
  properties: { status: { type: 'string' }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
  required: ['status', 'checks'],
  additionalProperties: false,
} as const;

const notReadySchema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    checks: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['title', 'detail'],
} as const;
