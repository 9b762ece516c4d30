import { findFreePort } from './free-port.js';
import { createTestServiceEnv, dropDatabase, type TestServiceEnv } from './test-service-env.js';
import { testServers } from './test-servers.js';
import { uniqueName } from './unique-name.js';

/** What a harness needs of a running service (the runtime's RunningService has it). */
export interface HarnessedService<App> {
  app: App;
  store: { outbox: { onCommit(listener: () => void): unknown } };
  stop(): Promise<unknown>;
}

export interface ServiceHarness<Service extends HarnessedService<unknown>> {
  service: Service;
  app: Service['app'];
  env: TestServiceEnv;
  /** Committed writes so far: each hands its events to the relay. */
  writes(): number;
  /** A bearer header for a client of the tenant. */
  as(tenant: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * A service as the runtime runs it in production (`start` is its startService), over a fresh
 * database of the run's servers. 127.0.0.1 stands for the gateway, whose forwarded headers the
 * service believes.
 */
export async function startServiceHarness<Service extends HarnessedService<unknown>>(
  prefix: string,
  start: (variables: Record<string, string>) => Promise<Service>,
  variables: Record<string, string> = {},
): Promise<ServiceHarness<Service>> {
  const env = await createTestServiceEnv(prefix, { TRUST_PROXY: '127.0.0.1', ...variables });
  const service = await start(env.variables);
  let writes = 0;
  service.store.outbox.onCommit(() => {
    writes += 1;
  });
  return {
    service,
    app: service.app,
    env,
    writes: () => writes,
    as: (tenant) => env.bearer(tenant),
    close: async () => {
      await service.stop();
      await env.close();
    },
  };
}

export interface CompanionService<Service> {
  service: Service;
  close(): Promise<void>;
}

/**
 * Another service beside a harnessed one, where the harnessed one calls it (the home-bases service
 * that employees' writes claim home bases from): the same servers and token issuer, a database of its
 * own, listening on `port`. Close it before the harness, whose issuer it uses.
 */
export async function startCompanionService<Service extends { stop(): Promise<unknown> }>(
  env: TestServiceEnv,
  prefix: string,
  port: number,
  start: (variables: Record<string, string>) => Promise<Service>,
): Promise<CompanionService<Service>> {
  const database = uniqueName(prefix);
  // the run's own MongoDB, even when the harnessed service was pointed at one a test stops
  const { mongoUrl } = testServers();
  const service = await start({ ...env.variables, PORT: String(port), MONGO_URL: mongoUrl, MONGO_DB: database });
  return {
    service,
    close: async () => {
      await service.stop();
      await dropDatabase(mongoUrl, database);
    },
  };
}

/** What a harness needs of the home-bases service's app: Fastify's inject(). */
interface InjectableApp {
  inject(request: { method: 'PUT'; url: string; headers: Record<string, string>; payload: object }): Promise<{ statusCode: number; body: string }>;
}

export type HarnessWithHomeBases<Service extends HarnessedService<unknown>, HomeBasesApp> = ServiceHarness<Service> & {
  /** The home-bases service beside it, where its writes claim the home bases they name. */
  homeBases: HomeBasesApp;
  /** Creates home bases in the tenant, so that bodies may name them. */
  createHomeBases(tenant: string, ...ids: string[]): Promise<void>;
};

/** Where every service serves its API. */
export const BASE = '/resource-management/v1';

/**
 * A service whose writes name home bases (employees, transport-resources, deployments), harnessed
 * as startServiceHarness does it, with a home-bases service of its own beside it at HOME_BASES_URL.
 */
export async function startServiceHarnessWithHomeBases<Service extends HarnessedService<unknown>, HomeBasesApp extends InjectableApp>(
  prefix: string,
  start: (variables: Record<string, string>) => Promise<Service>,
  startHomeBases: (variables: Record<string, string>) => Promise<{ app: HomeBasesApp; stop(): Promise<unknown> }>,
  variables: Record<string, string> = {},
): Promise<HarnessWithHomeBases<Service, HomeBasesApp>> {
  const homeBasesPort = await findFreePort();
  const harness = await startServiceHarness(prefix, start, { HOME_BASES_URL: `http://127.0.0.1:${homeBasesPort}${BASE}`, ...variables });
  const homeBases = await startCompanionService(harness.env, `${prefix}_home_bases`, homeBasesPort, startHomeBases);
  return {
    ...harness,
    homeBases: homeBases.service.app,
    async createHomeBases(tenant, ...ids) {
      const headers = await harness.as(tenant);
      for (const id of ids) {
        const response = await homeBases.service.app.inject({
          method: 'PUT',
          url: `${BASE}/home-base/${id}`,
          headers,
          payload: { name: `Home base ${id}`, address: { name: id, city: 'Gent', zip_code: '9000', country_code: 'BE' } },
        });
        if (response.statusCode >= 300) throw new Error(`home base ${id} was not created: ${response.statusCode} ${response.body}`);
      }
    },
    close: async () => {
      await homeBases.close();
      await harness.close();
    },
  };
}
