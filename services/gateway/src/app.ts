import { ConfigError, createTokenVerifier, type Logger } from '@rm/service-kit';
import { defineService } from '@rm/runtime';
import { gatewayConfigSpec } from './config.js';
import { createHashSlots } from './token-protection/hash-slots.js';
import { startTokenProtection } from './token-protection/token-protection.js';
import { createRefusalDelay } from './limits/refusal-delay.js';
import { limitTenantRequests, tenantLimitOf } from './limits/tenant-rate-limit.js';
import { startTenantRequestRate } from './limits/tenant-request-rate.js';
import { createApiDocument } from './openapi/api-document.js';
import { createKeyRing, SIGNING_ALGORITHM } from './keys/key-ring.js';
import { proxyRoutes } from './routes/proxy.routes.js';
import { changesRoutes } from './routes/changes.routes.js';
import { importRoutes } from './routes/import.routes.js';
import { startChangeFeeds } from './changes/change-feeds.js';
import { boardRoutes } from './routes/board.routes.js';
import { docsRoutes } from './routes/docs.routes.js';
import { operationsRoutes } from './routes/operations.routes.js';
import { TOKEN_PATH, tokenRoutes } from './routes/token.routes.js';
import { wellKnownRoutes } from './routes/well-known.routes.js';
import { createClientRegistry } from './store/client-registry.js';
import { createSigningKeyStore } from './store/signing-key-store.js';
import { createRevocationStore } from './revocations/revocation-store.js';
import { startRevocations } from './revocations/revocations.js';
import { closeUpstreams, createUpstreams } from './upstreams.js';

/** jose's remote key sets, in every service, fetch again for an unknown kid at most this often. */
const VERIFIER_REFETCH_COOLDOWN_MS = 30_000;

/**
 * A key must reach every replica (SIGNING_KEY_REFRESH_MS) and every verifier (the cooldown) before
 * it signs. Too short a lead for the verifiers only warns: tests and demos rotate in seconds.
 */
function checkKeyTiming(config: { SIGNING_KEY_PUBLISH_LEAD_MS: number; SIGNING_KEY_REFRESH_MS: number; SIGNING_KEY_ROTATION_MS: number }, logger: Logger): void {
  const problems = [];
  if (config.SIGNING_KEY_PUBLISH_LEAD_MS < 2 * config.SIGNING_KEY_REFRESH_MS) {
    problems.push('SIGNING_KEY_PUBLISH_LEAD_MS must be at least twice SIGNING_KEY_REFRESH_MS, so that every replica knows a key before it signs');
  }
  if (config.SIGNING_KEY_ROTATION_MS <= config.SIGNING_KEY_PUBLISH_LEAD_MS) {
    problems.push('SIGNING_KEY_ROTATION_MS must be longer than SIGNING_KEY_PUBLISH_LEAD_MS');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (config.SIGNING_KEY_PUBLISH_LEAD_MS < config.SIGNING_KEY_REFRESH_MS + VERIFIER_REFETCH_COOLDOWN_MS) {
    logger.warn('SIGNING_KEY_PUBLISH_LEAD_MS is shorter than SIGNING_KEY_REFRESH_MS + 30 s: a service may meet a new key before it fetches the key set again');
  }
}

/** Rate refusals held at once per replica until their Retry-After (refusal-delay.ts): a few MiB of waiting requests. */
const HELD_REFUSALS = 1_000;

/** How often a replica reads the revocations: with the services' AUTH_REVOCATIONS_REFRESH_MS, well within a minute. */
const REVOCATIONS_REFRESH_MS = 5_000;

/** An owner's part of the API document is asked for again after this long. */
const API_DOCUMENT_REFRESH_MS = 30_000;

/**
 * The gateway: the token endpoint and its keys, its clients and tenants, and the unified v1 API
 * that forwards every path to its owner. It keeps no entities and publishes no events; its state
 * (clients, signing keys) is in its own database and its shared rate state in NATS.
 */
export const gatewayService = defineService({
  name: 'gateway',
  port: 3000,
  config: gatewayConfigSpec,
  collections: () => ({}),
  async extend({ config, db, nc, js, jsm, logger, tracer }) {
    checkKeyTiming(config, logger);
    const keyRing = createKeyRing({
      store: createSigningKeyStore(db, config.SIGNING_KEY_ENCRYPTION_KEY, config.SIGNING_KEY_PREVIOUS_ENCRYPTION_KEY),
      policy: { rotationMs: config.SIGNING_KEY_ROTATION_MS, publishLeadMs: config.SIGNING_KEY_PUBLISH_LEAD_MS },
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      tokenLifetimeSeconds: config.TOKEN_LIFETIME_SECONDS,
      retentionMarginMs: config.SIGNING_KEY_RETENTION_MARGIN_MS,
      refreshMs: config.SIGNING_KEY_REFRESH_MS,
      logger,
    });
    await keyRing.start();
    const protection = await startTokenProtection({
      js,
      jsm,
      replicas: config.NATS_STREAM_REPLICAS,
      logger,
      limits: {
        ratePerSecond: config.TOKEN_RATE_LIMIT,
        clientRatePerSecond: config.TOKEN_RATE_LIMIT_PER_CLIENT,
        failureLimit: config.LOGIN_FAILURE_LIMIT,
        failureWindowMs: config.LOGIN_FAILURE_WINDOW_MS,
        blockMs: config.LOGIN_BLOCK_MS,
      },
    }).catch(async (error: unknown) => {
      await keyRing.stop();
      throw error;
    });
    const revocations = await startRevocations(createRevocationStore(db), { refreshMs: REVOCATIONS_REFRESH_MS, logger }).catch(async (error: unknown) => {
      await protection.stop();
      await keyRing.stop();
      throw error;
    });
    const tenantRequests = startTenantRequestRate({ nc, logger });
    const changeFeeds = startChangeFeeds({
      js,
      jsm,
      logger,
      heartbeatMs: config.CHANGE_FEED_HEARTBEAT_MS,
      feedsPerTenant: config.CHANGE_FEEDS_PER_TENANT,
    });
    // one second: every 429 says Retry-After: 1
    const refusals = createRefusalDelay({ delayMs: 1_000, most: HELD_REFUSALS });
    const defaultLimits = {
      requestsPerSecond: config.TENANT_REQUEST_RATE,
      employees: config.TENANT_EMPLOYEE_QUOTA,
      transportResources: config.TENANT_TRANSPORT_RESOURCE_QUOTA,
      availabilities: config.TENANT_AVAILABILITY_QUOTA,
    };
    const upstreams = createUpstreams(config, { connections: config.UPSTREAM_CONNECTIONS, timeoutMs: config.UPSTREAM_TIMEOUT_MS });
    const registry = createClientRegistry(db, { hashCost: config.CLIENT_SECRET_HASH_COST });
    const apiDocument = createApiDocument({
      upstreams,
      basePath: config.PUBLIC_BASE_PATH,
      tokenPath: TOKEN_PATH,
      refreshMs: API_DOCUMENT_REFRESH_MS,
      timeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
      logger,
    });
    return {
      verifyToken: createTokenVerifier({
        getKey: keyRing.getKey,
        issuer: config.AUTH_ISSUER,
        audience: config.AUTH_AUDIENCE,
        algorithms: [SIGNING_ALGORITHM],
        revocations,
      }),
      readiness: { signingKeys: keyRing.readiness, blockedIps: protection.readiness },
      publicRoutes: async (app) => {
        const hashing = createHashSlots({ concurrent: config.TOKEN_HASH_CONCURRENCY, queued: config.TOKEN_HASH_QUEUE });
        await app.register(tokenRoutes, { registry, keyRing, protection, hashing, refusals, defaultLimits });
        await app.register(wellKnownRoutes, { keyRing, revocations, issuer: config.AUTH_ISSUER });
        await app.register(docsRoutes, {
          apiDocument,
          basePath: config.PUBLIC_BASE_PATH,
          limits: { bodyLimit: config.BODY_LIMIT_BYTES, tokenRequestsPerIp: config.TOKEN_RATE_LIMIT, tokenRequestsPerClient: config.TOKEN_RATE_LIMIT_PER_CLIENT },
        });
        await app.register(boardRoutes, { basePath: config.PUBLIC_BASE_PATH });
        if (config.ADMIN_TOKEN !== undefined) {
          await app.register(operationsRoutes, { adminToken: config.ADMIN_TOKEN, upstreams, timeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000) });
        }
      },
      routes: async (api) => {
        api.addHook('onRequest', limitTenantRequests(tenantRequests, config.TENANT_REQUEST_RATE, refusals));
        // open feeds end before the server waits for its requests to finish: callers resume elsewhere
        api.addHook('preClose', async () => changeFeeds.endAll());
        await api.register(changesRoutes, { feeds: changeFeeds, revocations });
        await api.register(importRoutes, {
          upstreams,
          basePath: config.PUBLIC_BASE_PATH,
          lineLimit: config.BODY_LIMIT_BYTES,
          bodyLimit: config.IMPORT_BODY_LIMIT_BYTES,
          concurrency: config.IMPORT_CONCURRENCY,
          windowBytes: config.IMPORT_WINDOW_BYTES,
          requestRate: tenantRequests,
          keyRing,
          revocations,
          defaultLimits,
        });
        await api.register(proxyRoutes, {
          upstreams,
          bodyLimit: config.BODY_LIMIT_BYTES,
          tracer,
          chargeWrites: (request, writes) => tenantRequests.charge(request.auth.tenant, writes, tenantLimitOf(request, config.TENANT_REQUEST_RATE)),
        });
      },
      async stop() {
        changeFeeds.endAll();
        await changeFeeds.stop();
        await closeUpstreams(upstreams);
        await tenantRequests.stop();
        revocations.stop();
        await protection.stop();
        await keyRing.stop();
      },
    };
  },
});
