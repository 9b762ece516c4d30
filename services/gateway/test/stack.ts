import { startService } from '@rm/runtime';
import { deploymentsService } from '@rm/deployments/service';
import { employeesService } from '@rm/employees/service';
import { homeBasesService } from '@rm/home-bases/service';
import { matchingService } from '@rm/matching/service';
import { transportResourcesService } from '@rm/transport-resources/service';
import { webhooksService } from '@rm/webhooks/service';
import { findFreePort, startNatsServer, TEST_INTERNAL_API_KEY, TEST_MONGO_MAX_POOL_SIZE, testNatsPassword, testServers, uniqueName } from '@rm/testkit';
import { AUDIENCE, BASE, dropDatabase, ISSUER, startGateway, type GatewayHarness } from './helpers.js';

/** What the stack needs of a running owner. */
interface Owner {
  config: { PORT: number };
  stop(): Promise<unknown>;
}

/** The gateway with every owning service behind it, each listening on a port of its own, as `npm start` runs them. */
export interface Stack {
  gateway: GatewayHarness;
  /** The owners by service name. */
  owners: Record<string, Owner>;
  /** The stack's own nats-server, where the owners publish. */
  natsUrl: string;
  /** The databases of the gateway and the owners, on the run's MongoDB. */
  databases: string[];
  close(): Promise<void>;
}

const OWNERS: { name: string; upstream: string; start(env: Record<string, string>): Promise<Owner> }[] = [
  { name: homeBasesService.name, upstream: 'UPSTREAM_HOME_BASES_URL', start: (env) => startService(homeBasesService, { env }) },
  { name: employeesService.name, upstream: 'UPSTREAM_EMPLOYEES_URL', start: (env) => startService(employeesService, { env }) },
  {
    name: transportResourcesService.name,
    upstream: 'UPSTREAM_TRANSPORT_RESOURCES_URL',
    start: (env) => startService(transportResourcesService, { env }),
  },
  { name: deploymentsService.name, upstream: 'UPSTREAM_DEPLOYMENTS_URL', start: (env) => startService(deploymentsService, { env }) },
  { name: matchingService.name, upstream: 'UPSTREAM_MATCHING_URL', start: (env) => startService(matchingService, { env }) },
  // its receivers, if any, run here
  { name: webhooksService.name, upstream: 'UPSTREAM_WEBHOOKS_URL', start: (env) => startService(webhooksService, { env: { ...env, WEBHOOK_TARGETS: 'any' } }) },
];

/**
 * Starts the gateway (with `gatewayVariables` beside the owners' addresses) and every owner over a
 * database of its own, on a nats-server of the stack's own (the matching engine would otherwise copy
 * and match every event the run's other tests published); the owners verify tokens against the
 * gateway's key set and claim home bases from the home-bases service, as in production.
 */
export async function startStack(gatewayVariables: Record<string, string> = {}): Promise<Stack> {
  const ports = await Promise.all(OWNERS.map(() => findFreePort()));
  const origins = ports.map((port) => `http://127.0.0.1:${port}`);
  const upstreams = Object.fromEntries(OWNERS.map(({ upstream }, index) => [upstream, origins[index]!]));
  const nats = await startNatsServer();
  // a change feed's heartbeat every 200 ms, and 5 feeds per tenant: the feed's tests see both soon
  const gateway = await startGateway({ ...upstreams, NATS_URL: nats.url, CHANGE_FEED_HEARTBEAT_MS: '200', CHANGE_FEEDS_PER_TENANT: '5', ...gatewayVariables });
  const owners: Record<string, Owner> = {};
  const databases: string[] = [];
  const close = async () => {
    for (const owner of Object.values(owners)) await owner.stop();
    await gateway.close();
    await nats.stop();
    for (const database of [gateway.variables.MONGO_DB!, ...databases]) await dropDatabase(database);
  };
  try {
    for (const [index, { name, start }] of OWNERS.entries()) {
      const database = uniqueName(name.replaceAll('-', '_'));
      databases.push(database);
      owners[name] = await start({
        HOST: '127.0.0.1',
        PORT: String(ports[index]),
        LOG_LEVEL: 'silent',
        MONGO_URL: testServers().mongoUrl,
        MONGO_DB: database,
        MONGO_MAX_POOL_SIZE: TEST_MONGO_MAX_POOL_SIZE,
        NATS_URL: nats.url,
        NATS_PASSWORD: testNatsPassword(),
        AUTH_JWKS_URL: `${gateway.origin}/.well-known/jwks.json`,
        // a revocation reaches the owners within moments in tests
        AUTH_REVOCATIONS_REFRESH_MS: '200',
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
        CURSOR_SECRET: 'test-only-cursor-secret-0123456789abcdef',
        TRUST_PROXY: '127.0.0.1',
        HOME_BASES_URL: `${upstreams.UPSTREAM_HOME_BASES_URL}${BASE}`,
        // where deployments asks about an employee or transport resource it has no event of yet
        EMPLOYEES_URL: `${upstreams.UPSTREAM_EMPLOYEES_URL}${BASE}`,
        TRANSPORT_RESOURCES_URL: `${upstreams.UPSTREAM_TRANSPORT_RESOURCES_URL}${BASE}`,
        INTERNAL_API_KEY: TEST_INTERNAL_API_KEY,
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { gateway, owners, natsUrl: nats.url, databases: [gateway.variables.MONGO_DB!, ...databases], close };
}
