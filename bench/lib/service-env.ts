import { createTestServiceEnv, type TestServiceEnv } from '@rm/testkit';

/**
 * A service's environment as the tests make it, but with the service's own default of MongoDB connections
 * (MONGO_MAX_POOL_SIZE, 8) instead of the tests' 4: a bench measures one service as it is deployed, alone
 * on the run's FerretDB.
 */
export function benchServiceEnv(prefix: string, overrides: Record<string, string> = {}): Promise<TestServiceEnv> {
  return createTestServiceEnv(prefix, { MONGO_MAX_POOL_SIZE: '8', ...overrides });
}
