// npm start: the dev stack. Starts (or reuses, from MONGO_URL / NATS_URL) a MongoDB-compatible server
// and nats-server, starts every built service with prefixed logs, waits until each is ready, prints
// where to reach them, and stops everything it started on Ctrl-C.
//
// Until the gateway (token endpoint and JWKS) exists, a dev issuer signs the tokens the services
// accept, and this script prints one for the demo tenant.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestIssuer, describeServers, startRunServers } from '@rm/testkit';

/** Fixed local ports, so that URLs stay the same from run to run. */
const SERVICE_PORTS: Record<string, number> = {
  gateway: 3000,
  employees: 3001,
  'transport-resources': 3002,
  'home-bases': 3003,
  deployments: 3004,
  matching: 3005,
};
const BASE_PATH = '/resource-management/v1';
const DEMO_TENANT = process.env.RM_DEMO_TENANT ?? 'demo';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const root = join(import.meta.dirname, '..');
const services = Object.keys(SERVICE_PORTS).filter((name) => existsSync(join(root, 'services', name, 'dist', 'main.js')));

const servers = await startRunServers();
const issuer = await createTestIssuer({ issuer: 'http://127.0.0.1/dev-issuer', audience: 'resource-management' });
const jwks = await issuer.serveJwks();
const children = new Map<string, ChildProcess>();
let stopping = false;

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  console.log(`dev stack: ${await describeServers(servers)}`);
  for (const name of services) children.set(name, startService(name));
  await Promise.all(services.map((name) => waitUntilReady(name)));
  const token = await issuer.mint({ tenant: DEMO_TENANT, clientId: 'demo-client', expiresInSeconds: 12 * 3600 });
  printWelcome(token);
} catch (error) {
  console.error(`dev stack: ${error instanceof Error ? error.message : String(error)}`);
  await stop(1);
}

function startService(name: string): ChildProcess {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: join(root, 'services', name),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(SERVICE_PORTS[name]),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      MONGO_URL: servers.mongoUrl,
      MONGO_DB: name.replaceAll('-', '_'),
      NATS_URL: servers.natsUrl,
      AUTH_JWKS_URL: jwks.url,
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: issuer.audience,
      CURSOR_SECRET: process.env.CURSOR_SECRET ?? 'dev-only-cursor-secret-never-use-in-production',
    },
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`dev stack: ${name} exited (${signal ?? code}); stopping the stack`);
      void stop(1);
    }
  });
  return child;
}

async function waitUntilReady(name: string): Promise<void> {
  const url = `http://127.0.0.1:${SERVICE_PORTS[name]}/readyz`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!children.has(name)) throw new Error(`${name} exited before it was ready`);
    const status = await fetch(url).then((response) => response.status, () => 0);
    if (status === 200) return;
    await sleep(250);
  }
  throw new Error(`${name} was not ready within ${READY_TIMEOUT_MS / 1000} s (${url})`);
}

function printWelcome(token: string): void {
  const lines = ['', 'Resource management dev stack is up:'];
  for (const name of services) {
    const origin = `http://127.0.0.1:${SERVICE_PORTS[name]}`;
    lines.push(`  ${name.padEnd(20)} ${origin}${BASE_PATH}   (${origin}/healthz, ${origin}/readyz)`);
  }
  const first = services[0];
  lines.push(
    '',
    `Until the gateway exists, a dev issuer signs tokens. One for tenant '${DEMO_TENANT}', valid 12 h:`,
    `  export TOKEN=${token}`,
  );
  if (first !== undefined) {
    lines.push(`  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${SERVICE_PORTS[first]}${BASE_PATH}/ping`);
  }
  lines.push('', 'Ctrl-C stops everything this started.', '');
  console.log(lines.join('\n'));
}

async function stop(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log('dev stack: stopping');
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  await jwks.close();
  await servers.stop();
  process.exit(exitCode);
}
