import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { findFreePort } from './free-port.js';
import { testNatsPassword } from './test-nats-access.js';
import { createTestIssuer, type MintOptions, type TestIssuer } from './test-issuer.js';
import { testServers } from './test-servers.js';
import { uniqueName } from './unique-name.js';

export interface TestServiceEnv {
  /**
   * The environment to start a service with, as its container would get it: the run's servers, a
   * database of its own, a test issuer's key set served over HTTP, silent logs.
   */
  variables: Record<string, string>;
  issuer: TestIssuer;
  /** An Authorization header for a client of `tenant`. */
  bearer(tenant: string, options?: Omit<MintOptions, 'tenant'>): Promise<{ authorization: string }>;
  /** Drops the database and stops serving the key set; call it after the service stopped. */
  close(): Promise<void>;
}

/**
 * MongoDB connections of each service a test starts: a whole stack of six on the run's FerretDB then
 * holds at most 24 of its 48 PostgreSQL connections, so that one is always free for an update's second
 * (ferretdb-storage.ts). Every launcher of test services sets it.
 */
export const TEST_MONGO_MAX_POOL_SIZE = '4';

/** The services' key for `/internal` (INTERNAL_API_KEY) in every service a test starts. */
export const TEST_INTERNAL_API_KEY = 'test-only-internal-api-key-0123456789abcdef';

/** What a test needs to start a real service (the runtime's startService) against the run's servers. */
export async function createTestServiceEnv(prefix: string, overrides: Record<string, string> = {}): Promise<TestServiceEnv> {
  const { mongoUrl, natsUrl } = testServers();
  const issuer = await createTestIssuer();
  const jwks = await issuer.serveJwks();
  const database = overrides.MONGO_DB ?? uniqueName(prefix);
  const variables: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: String(await findFreePort()),
    LOG_LEVEL: 'silent',
    MONGO_URL: mongoUrl,
    MONGO_DB: database,
    MONGO_MAX_POOL_SIZE: TEST_MONGO_MAX_POOL_SIZE,
    NATS_URL: natsUrl,
    // NATS_USER is the service's name, as in production: a test service has its permissions
    NATS_PASSWORD: testNatsPassword(),
    AUTH_JWKS_URL: jwks.url,
    AUTH_ISSUER: issuer.issuer,
    AUTH_AUDIENCE: issuer.audience,
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    INTERNAL_API_KEY: TEST_INTERNAL_API_KEY,
    ...overrides,
  };
  return {
    variables,
    issuer,
    bearer: async (tenant, options = {}) => ({ authorization: `Bearer ${await issuer.mint({ ...options, tenant })}` }),
    async close() {
      await jwks.close();
      await dropDatabase(variables.MONGO_URL ?? mongoUrl, database);
    },
  };
}

export async function dropDatabase(mongoUrl: string, database: string): Promise<void> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}
