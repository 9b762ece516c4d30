// Starts the whole stack as processes, as `npm start` does: every built service on 127.0.0.1 behind the
// gateway, each with its own database on the given MongoDB-compatible server and nats-server. Shared by
// dev-stack.ts (fixed ports, fixed database names), and the reliability suite and the client's tests
// (throw-away stacks: free ports, fresh names, dropped at the end).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { findFreePort, testNatsPassword, uniqueName, type TestServerUrls } from '@rm/testkit';
import { PATH_OWNERS } from '@rm/gateway/testing';

export const SERVICE_NAMES = ['gateway', 'employees', 'transport-resources', 'home-bases', 'deployments', 'matching', 'webhooks'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const BASE_PATH = '/resource-management/v1';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
const root = join(import.meta.dirname, '..');
const clientsCli = join(root, 'services/gateway/dist/cli/clients.js');

export interface StackOptions extends TestServerUrls {
  /** Each service's port; a free one for those not named. */
  ports?: Partial<Record<ServiceName, number>>;
  /** Each service's database; default its name with `_` for `-`. */
  database?(service: ServiceName): string;
  logLevel?: string;
  /** The password of every service's NATS user (each connects as its name): the run's servers' (testkit). */
  natsPassword: string;
  cursorSecret?: string;
  adminToken: string;
  signingKeyEncryptionKey: string;
  /** The services' key for each other's `/internal` routes (INTERNAL_API_KEY). */
  internalApiKey: string;
  /** The gateway's variables beyond its upstreams and keys (TRUST_PROXY, LOGIN_*). */
  gatewayVariables?: Record<string, string>;
  /** NODE_OPTIONS of every service (the pods' heap limit, to measure memory as deployed); default the caller's. */
  nodeOptions?: string;
  /** Every line a service writes. */
  onLine?(service: ServiceName, line: string): void;
  /** A service exited while the stack was not stopping, and not by `kill`. */
  onExit?(service: ServiceName, reason: string): void;
}

/**
 * The options of a stack that meets nothing else on the run's servers: databases named `<prefix>_<service>_…`
 * (fresh each time) and keys of its own, for a test file or the reliability suite.
 */
export function throwawayStackOptions(servers: TestServerUrls, prefix: string): StackOptions {
  const key = () => randomBytes(32).toString('hex');
  return {
    ...servers,
    database: (name) => uniqueName(`${prefix}_${name}`),
    logLevel: 'warn',
    natsPassword: testNatsPassword(),
    cursorSecret: key(),
    adminToken: key(),
    signingKeyEncryptionKey: key(),
    internalApiKey: key(),
  };
}

/** A tenant of a throw-away stack with one client. */
export interface ThrowawayTenant {
  tenant: string;
  clientId: string;
  secret: string;
}

/** A tenant of a fresh name `<prefix>-…` with one client, `<tenant>-client`, of a random secret (the gateway's clients CLI). */
export async function createThrowawayTenant(stack: Stack, prefix: string): Promise<ThrowawayTenant> {
  const tenant = uniqueName(prefix).replaceAll('_', '-');
  const client = { tenant, clientId: `${tenant}-client`, secret: randomBytes(24).toString('hex') };
  await stack.ensureClient(client.tenant, client.clientId, client.secret);
  return client;
}

/** Stops a throw-away stack and drops its databases; gives up on the server after 10 s rather than hang the run. */
export async function stopThrowawayStack(stack: Stack, servers: TestServerUrls): Promise<void> {
  await stack.stop();
  const mongo = new MongoClient(servers.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  try {
    for (const database of Object.values(stack.databases)) await mongo.db(database).dropDatabase();
  } finally {
    await mongo.close();
  }
}

export interface Stack {
  /** The services that are built (dist/main.js) and run. */
  services: ServiceName[];
  origins: Record<ServiceName, string>;
  databases: Record<ServiceName, string>;
  gateway: string;
  /** The gateway's API base URL. */
  api: string;
  /** The tenant and client exist, enabled, with this secret (the gateway's clients CLI, idempotent). */
  ensureClient(tenant: string, clientId: string, secret: string): Promise<void>;
  /** Sends the service the signal and resolves once it has exited; not reported to `onExit`. */
  kill(name: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a killed service again with the same variables; resolves once it answers /readyz. */
  restart(name: ServiceName): Promise<void>;
  /**
   * One more process of a service, on a free port, with some variables changed (a second engine on a
   * fresh database); resolves once it answers /readyz. Stopped with the stack, or by its own `stop`.
   */
  startCopy(name: ServiceName, variables: Record<string, string>): Promise<{ origin: string; stop(): Promise<void> }>;
  /** The process id of each running service (not of its copies). */
  processIds(): Partial<Record<ServiceName, number>>;
  /** Stops every service (SIGTERM, then SIGKILL after 15 s). */
  stop(): Promise<void>;
}

/** Starts every built service and resolves once each answers /readyz; stops those started if one fails. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const services = SERVICE_NAMES.filter((name) => existsSync(join(root, 'services', name, 'dist', 'main.js')));
  const ports = Object.fromEntries(
    await Promise.all(SERVICE_NAMES.map(async (name) => [name, options.ports?.[name] ?? (await findFreePort())] as const)),
  ) as Record<ServiceName, number>;
  const origins = Object.fromEntries(SERVICE_NAMES.map((name) => [name, `http://127.0.0.1:${ports[name]}`])) as Record<ServiceName, string>;
  const databases = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, options.database?.(name) ?? name.replaceAll('-', '_')]),
  ) as Record<ServiceName, string>;
  const gateway = origins.gateway;
  const children = new Map<ServiceName, ChildProcess>();
  const copies = new Set<ChildProcess>();
  /** Processes killed or stopped on purpose: their exit is not news. */
  const killed = new WeakSet<ChildProcess>();
  let stopping = false;

  const upstreams = PATH_OWNERS.filter(({ service }) => services.includes(service)).map(({ service, variable }) => [
    variable,
    origins[service],
  ]);
  const variablesOf = (name: ServiceName): Record<string, string> => ({
    HOST: '127.0.0.1',
    PORT: String(ports[name]),
    LOG_LEVEL: options.logLevel ?? 'info',
    MONGO_URL: options.mongoUrl,
    MONGO_DB: databases[name],
    // seven services on a FerretDB stay under its PostgreSQL connections (testkit's ferretdb-storage.ts)
    MONGO_MAX_POOL_SIZE: '4',
    NATS_URL: options.natsUrl,
    NATS_PASSWORD: options.natsPassword,
    AUTH_JWKS_URL: `${gateway}/.well-known/jwks.json`,
    AUTH_ISSUER: gateway,
    AUTH_AUDIENCE: 'resource-management',
    CURSOR_SECRET: options.cursorSecret ?? 'dev-only-cursor-secret-never-use-in-production',
    // a development stack: its defaults are the known dev-only-… secrets
    ALLOW_DEV_ONLY_SECRETS: 'true',
    HOME_BASES_URL: `${origins['home-bases']}${BASE_PATH}`,
    // the owners deployments asks about an employee or transport resource it has no event of yet
    EMPLOYEES_URL: `${origins.employees}${BASE_PATH}`,
    TRANSPORT_RESOURCES_URL: `${origins['transport-resources']}${BASE_PATH}`,
    INTERNAL_API_KEY: options.internalApiKey,
    // a development stack: its webhook receivers run on this machine
    ...(name === 'webhooks' ? { WEBHOOK_TARGETS: 'any' } : {}),
    ...(options.nodeOptions === undefined ? {} : { NODE_OPTIONS: options.nodeOptions }),
    ...(name === 'gateway'
      ? {
          SIGNING_KEY_ENCRYPTION_KEY: options.signingKeyEncryptionKey,
          ADMIN_TOKEN: options.adminToken,
          ...Object.fromEntries(upstreams),
          ...options.gatewayVariables,
        }
      : // owners believe the gateway's X-Forwarded-* (Location, client address)
        { TRUST_PROXY: '127.0.0.1' }),
  });

  function spawnService(name: ServiceName, variables: Record<string, string>): ChildProcess {
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: join(root, 'services', name),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...variables },
    });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => options.onLine?.(name, line));
    }
    child.on('exit', (code, signal) => {
      if (children.get(name) === child) children.delete(name);
      copies.delete(child);
      if (!stopping && !killed.has(child)) options.onExit?.(name, String(signal ?? code));
    });
    return child;
  }

  function start(name: ServiceName): void {
    children.set(name, spawnService(name, variablesOf(name)));
  }

  const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

  async function waitUntilReady(name: ServiceName, child = children.get(name), origin = origins[name]): Promise<void> {
    const url = `${origin}/readyz`;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child === undefined || hasExited(child)) throw new Error(`${name} exited before it was ready`);
      const status = await fetch(url, { signal: AbortSignal.timeout(5_000) }).then((response) => response.status, () => 0);
      if (status === 200) return;
      await sleep(250);
    }
    throw new Error(`${name} was not ready within ${READY_TIMEOUT_MS / 1000} s (${url})`);
  }

  function stopProcess(child: ChildProcess): Promise<void> {
    killed.add(child);
    if (hasExited(child)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }

  async function stop(): Promise<void> {
    stopping = true;
    await Promise.all([...children.values(), ...copies].map(stopProcess));
  }

  async function kill(name: ServiceName, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = children.get(name);
    if (child === undefined || hasExited(child)) return;
    killed.add(child);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  async function restart(name: ServiceName): Promise<void> {
    if (children.has(name)) throw new Error(`${name} is still running`);
    start(name);
    await waitUntilReady(name);
  }

  async function startCopy(name: ServiceName, variables: Record<string, string>): Promise<{ origin: string; stop(): Promise<void> }> {
    const port = await findFreePort();
    const origin = `http://127.0.0.1:${port}`;
    const child = spawnService(name, { ...variablesOf(name), ...variables, PORT: String(port) });
    copies.add(child);
    try {
      await waitUntilReady(name, child, origin);
    } catch (error) {
      await stopProcess(child);
      throw error;
    }
    return { origin, stop: () => stopProcess(child) };
  }

  async function ensureClient(tenant: string, clientId: string, secret: string): Promise<void> {
    await promisify(execFile)(process.execPath, [clientsCli, 'ensure', '--tenant', tenant, '--id', clientId], {
      timeout: 60_000,
      env: { ...process.env, MONGO_URL: options.mongoUrl, MONGO_DB: databases.gateway, RM_CLIENT_SECRET: secret },
    });
  }

  try {
    for (const name of services) start(name);
    await Promise.all(services.map((name) => waitUntilReady(name)));
  } catch (error) {
    await stop();
    throw error;
  }
  const processIds = () => Object.fromEntries([...children].map(([name, child]) => [name, child.pid!]));
  return { services, origins, databases, gateway, api: `${gateway}${BASE_PATH}`, ensureClient, kill, restart, startCopy, processIds, stop };
}
