import { randomBytes, randomInt } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import { startService } from '@rm/runtime';
import { findFreePort, TEST_MONGO_MAX_POOL_SIZE, testNatsPassword, testServers, uniqueName } from '@rm/testkit';
import { gatewayService } from '../src/app.js';
import { ClientRegistryError, createClientRegistry, type ClientRegistry } from '../src/store/client-registry.js';
import { createSigningKeyStore } from '../src/store/signing-key-store.js';

export const BASE = '/resource-management/v1';
export const ISSUER = 'https://gateway.test';
export const AUDIENCE = 'resource-management';
/** The token protection's streams are one per NATS server: every test gateway declares them with the same limits. */
export const TEST_LIMITS = { TOKEN_RATE_LIMIT: '10', TOKEN_RATE_LIMIT_PER_CLIENT: '6', LOGIN_FAILURE_LIMIT: '3', LOGIN_FAILURE_WINDOW_MS: '60000', LOGIN_BLOCK_MS: '60000' };
/** Low scrypt cost: tests create many clients. The benchmark states the production cost. */
const TEST_HASH_COST = 10;

export interface GatewayHarness {
  /** Stops this replica (HTTP, key ring, token protection, connections). */
  stop(): Promise<unknown>;
  origin: string;
  variables: Record<string, string>;
  registry: ClientRegistry;
  /** fetch against the gateway, as if from `ip` behind the trusted proxy (127.0.0.1) in front of it. */
  fetch(path: string, init?: RequestInit & { ip?: string }): Promise<Response>;
  close(): Promise<void>;
}

/** A source address no other test uses: the rate limit and blocks are per IP and shared across tests. */
export function freshIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

/**
 * A gateway as main.ts runs it, listening on a free port, with a database of its own (or the one of
 * `variables.MONGO_DB`, to run a second replica). Requests come from 127.0.0.1, a trusted proxy, so
 * each harness (or each call) has its own client IP in X-Forwarded-For.
 */
export async function startGateway(variables: Record<string, string> = {}): Promise<GatewayHarness> {
  const { mongoUrl, natsUrl } = testServers();
  const port = await findFreePort();
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'silent',
    MONGO_URL: mongoUrl,
    MONGO_DB: uniqueName('gateway'),
    MONGO_MAX_POOL_SIZE: TEST_MONGO_MAX_POOL_SIZE,
    NATS_URL: natsUrl,
    NATS_PASSWORD: testNatsPassword(),
    AUTH_ISSUER: ISSUER,
    AUTH_AUDIENCE: AUDIENCE,
    SIGNING_KEY_ENCRYPTION_KEY: 'test-only-signing-key-encryption-key-0123456789',
    TRUST_PROXY: '127.0.0.1',
    CLIENT_SECRET_HASH_COST: String(TEST_HASH_COST),
    ...TEST_LIMITS,
    ...variables,
  };
  const service = await startService(gatewayService, { env });
  const mongo = new MongoClient(mongoUrl);
  const registry = createClientRegistry(mongo.db(env.MONGO_DB), { hashCost: TEST_HASH_COST });
  const origin = `http://127.0.0.1:${port}`;
  const ownIp = freshIp();
  return {
    stop: () => service.stop(),
    origin,
    variables: env,
    registry,
    fetch: (path, { ip = ownIp, headers, ...init } = {}) =>
      fetch(`${origin}${path}`, { ...init, headers: { 'X-Forwarded-For': ip, ...Object.fromEntries(new Headers(headers)) } }),
    async close() {
      await service.stop();
      await mongo.close();
    },
  };
}

/** Drops a gateway's database once every replica using it has stopped. */
export async function dropDatabase(name: string): Promise<void> {
  const client = new MongoClient(testServers().mongoUrl);
  try {
    await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

/** A tenant and a client of it; returns the credentials. */
export async function createClient(registry: ClientRegistry, tenant = uniqueName('t')): Promise<{ tenant: string; clientId: string; secret: string }> {
  await registry.createTenant(tenant).catch((error: unknown) => {
    if (!(error instanceof ClientRegistryError && error.reason === 'exists')) throw error;
  });
  const { clientId, secret } = await registry.createClient({ tenant });
  return { tenant, clientId, secret };
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

export const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** A token from the gateway by HTTP Basic. */
export async function tokenFor(gateway: GatewayHarness, clientId: string, secret: string, ip?: string): Promise<string> {
  const response = await gateway.fetch('/oauth2/token', {
    method: 'POST',
    headers: { ...FORM, Authorization: basic(clientId, secret) },
    body: 'grant_type=client_credentials',
    ...(ip === undefined ? {} : { ip }),
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A client of a tenant (a new one unless `tenant` is given), signed in: its credentials and a token from the gateway. */
export async function signIn(gateway: GatewayHarness, tenant?: string): Promise<{ tenant: string; clientId: string; secret: string; token: string }> {
  const client = await createClient(gateway.registry, tenant);
  return { ...client, token: await tokenFor(gateway, client.clientId, client.secret) };
}

export function randomSecret(): string {
  return randomBytes(16).toString('hex');
}

/** A token signed with the gateway's own current key, with the times given (expired ones too), of a tenant's client. */
export async function signWithGatewayKey(
  gateway: GatewayHarness,
  times: { exp: number; iat: number },
  { audience = AUDIENCE, tenant = 'acme', clientId = 'c' }: { audience?: string; tenant?: string; clientId?: string } = {},
): Promise<string> {
  const mongo = new MongoClient(testServers().mongoUrl);
  try {
    const [key] = await createSigningKeyStore(mongo.db(gateway.variables.MONGO_DB), gateway.variables.SIGNING_KEY_ENCRYPTION_KEY!).all();
    return await new SignJWT({ tenant, client_id: clientId, ...times })
      .setProtectedHeader({ alg: 'ES256', kid: key!.kid, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(audience)
      .setSubject(clientId)
      .sign(await importJWK(key!.privateJwk, 'ES256'));
  } finally {
    await mongo.close();
  }
}
