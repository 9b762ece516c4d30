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

/** A service that a harnessed one calls, started beside it: `start` is its startService. */
export interface Companion<Service extends { stop(): Promise<unknown> } = { stop(): Promise<unknown> }> {
  /** The variable that tells the harnessed service where the companion's API is (HOME_BASES_URL). */
  variable: string;
  start(variables: Record<string, string>): Promise<Service>;
}

/** Companions by name; the name goes into the companion's database name (`<prefix>_<name>`). */
export type Companions = Record<string, Companion>;

/** The running services of `companions`, by the same names. */
export type StartedCompanions<Started extends Companions> = { [Name in keyof Started]: Awaited<ReturnType<Started[Name]['start']>> };

export type HarnessWithHomeBases<Service extends HarnessedService<unknown>, HomeBasesApp, Others extends Companions = Record<never, never>> = ServiceHarness<Service> & {
  /** The home-bases service beside it, where its writes claim the home bases they name. */
  homeBases: HomeBasesApp;
  /** Creates home bases in the tenant, so that bodies may name them. */
  createHomeBases(tenant: string, ...ids: string[]): Promise<void>;
  /** The other services beside it (`others`), by name. */
  companions: StartedCompanions<Others>;
};

/** Where every service serves its API. */
export const BASE = '/resource-management/v1';

/**
 * A service whose writes name home bases (employees, transport-resources, deployments), harnessed
 * as startServiceHarness does it, with a home-bases service of its own beside it at HOME_BASES_URL
 * and the `others` it calls (the owners of what else its writes name) each at its variable: every
 * one a companion (startCompanionService) on a port of its own. `variables` may point any of those
 * variables elsewhere (the companion is still started, and not called).
 */
export async function startServiceHarnessWithHomeBases<
  Service extends HarnessedService<unknown>,
  HomeBasesApp extends InjectableApp,
  Others extends Companions = Record<never, never>,
>(
  prefix: string,
  start: (variables: Record<string, string>) => Promise<Service>,
  startHomeBases: (variables: Record<string, string>) => Promise<{ app: HomeBasesApp; stop(): Promise<unknown> }>,
  variables: Record<string, string> = {},
  others: Others = {} as Others,
): Promise<HarnessWithHomeBases<Service, HomeBasesApp, Others>> {
  // a port for each, before the harnessed service starts: it is told where they are
  const placed: { name: string; companion: Companion; port: number }[] = [];
  for (const [name, companion] of Object.entries({ home_bases: { variable: 'HOME_BASES_URL', start: startHomeBases }, ...others })) {
    placed.push({ name, companion, port: await findFreePort() });
  }
  const urls = Object.fromEntries(placed.map(({ companion, port }) => [companion.variable, `http://127.0.0.1:${port}${BASE}`]));
  const harness = await startServiceHarness(prefix, start, { ...urls, ...variables });
  const running = new Map<string, CompanionService<unknown>>();
  // the companions first, then the harness, whose issuer they use
  const close = async () => {
    for (const companion of [...running.values()].toReversed()) await companion.close();
    await harness.close();
  };
  try {
    for (const { name, companion, port } of placed) {
      running.set(name, await startCompanionService(harness.env, `${prefix}_${name}`, port, companion.start));
    }
  } catch (error) {
    await close();
    throw error;
  }
  // each started by the `start` it came with, so of the type that start gives
  const homeBases = running.get('home_bases')!.service as { app: HomeBasesApp };
  const companions = Object.fromEntries(Object.keys(others).map((name) => [name, running.get(name)!.service])) as StartedCompanions<Others>;
  return {
    ...harness,
    homeBases: homeBases.app,
    companions,
    async createHomeBases(tenant, ...ids) {
      const headers = await harness.as(tenant);
      for (const id of ids) {
        const response = await homeBases.app.inject({
          method: 'PUT',
          url: `${BASE}/home-base/${id}`,
          headers,
          payload: { name: `Home base ${id}`, address: { name: id, city: 'Gent', zip_code: '9000', country_code: 'BE' } },
        });
        if (response.statusCode >= 300) throw new Error(`home base ${id} was not created: ${response.statusCode} ${response.body}`);
      }
    },
    close,
  };
}
