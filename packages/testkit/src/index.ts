export { defaultServersDir, loadTestkitConfig, type TestkitConfig } from './config.js';
export { describeServers, type DescribedServers } from './describe-servers.js';
export { NoServerAvailableError, ServerStartError, TestServersMissingError } from './errors.js';
export { startMongoServer } from './mongo-server.js';
export { startNatsServer, type NatsServerOptions } from './nats-server.js';
export type { NatsServerHandle, RestartableServerHandle, ServerHandle } from './server-handle.js';
export { createTestIssuer, JWKS_PATH, type MintOptions, type TestIssuer } from './test-issuer.js';
export { connectTestMongo, type TestMongo } from './test-mongo.js';
export { connectTestNats, type TestNats } from './test-nats.js';
export { TEST_NATS_ADMIN, testNatsAdmin, testNatsPassword } from './test-nats-access.js';
export { createTestServiceEnv, TEST_INTERNAL_API_KEY, TEST_MONGO_MAX_POOL_SIZE, type TestServiceEnv } from './test-service-env.js';
export { startRunServers, type RunServers } from './run-servers.js';
export { testServers, type TestServerUrls } from './test-servers.js';
export { findFreePort } from './free-port.js';
export { NOBODY_LISTENS_URL, startSilentServer, type SilentServer } from './silent-server.js';
export { uniqueName } from './unique-name.js';
export { waitFor } from './wait-for.js';
export { planNodes, unservedLookups } from './index-served.js';
export { parseMetricSamples, type MetricSamples } from './metric-samples.js';
export { recordEvents, type RecordedEvents } from './record-events.js';
export {
  startCompanionService,
  startServiceHarness,
  startServiceHarnessWithHomeBases,
  type Companions,
  type CompanionService,
  type HarnessedService,
  type HarnessWithHomeBases,
  type ServiceHarness,
} from './service-harness.js';
