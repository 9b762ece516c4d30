// npm start: the dev stack. Starts (or reuses, from MONGO_URL / NATS_URL) a MongoDB-compatible server
// and nats-server, starts every built service with prefixed logs behind the gateway, waits until each
// is ready, seeds the demo tenant and client, prints how to get a token and call the API, and stops
// everything it started on Ctrl-C.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describeServers, startRunServers } from '@rm/testkit';
import { PATH_OWNERS } from '../services/gateway/dist/upstreams.js';

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
const GATEWAY = `http://127.0.0.1:${SERVICE_PORTS.gateway}`;
const DEMO_TENANT = process.env.RM_DEMO_TENANT ?? 'demo';
const DEMO_CLIENT_ID = process.env.RM_DEMO_CLIENT_ID ?? 'demo-client';
const DEMO_CLIENT_SECRET = process.env.RM_DEMO_CLIENT_SECRET ?? 'demo-secret-for-local-use-only';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const root = join(import.meta.dirname, '..');
const services = Object.keys(SERVICE_PORTS).filter((name) => existsSync(join(root, 'services', name, 'dist', 'main.js')));

const servers = await startRunServers();
const children = new Map<string, ChildProcess>();
let stopping = false;

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  console.log(`dev stack: ${await describeServers(servers)}`);
  for (const name of services) children.set(name, startService(name));
  await Promise.all(services.map((name) => waitUntilReady(name)));
  await seedDemoClient();
  printWelcome();
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
      AUTH_JWKS_URL: `${GATEWAY}/.well-known/jwks.json`,
      AUTH_ISSUER: GATEWAY,
      AUTH_AUDIENCE: 'resource-management',
      CURSOR_SECRET: process.env.CURSOR_SECRET ?? 'dev-only-cursor-secret-never-use-in-production',
      HOME_BASES_URL: `http://127.0.0.1:${SERVICE_PORTS['home-bases']}${BASE_PATH}`,
      ...(name === 'gateway' ? gatewayVariables() : { TRUST_PROXY: '127.0.0.1' }),
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

/** The gateway forwards to every service this stack runs. */
function gatewayVariables(): Record<string, string> {
  const upstreams = PATH_OWNERS.filter(({ service }) => services.includes(service)).map(({ service, variable }) => [variable, `http://127.0.0.1:${SERVICE_PORTS[service]}`]);
  return {
    SIGNING_KEY_ENCRYPTION_KEY: process.env.SIGNING_KEY_ENCRYPTION_KEY ?? 'dev-only-signing-key-encryption-key-never-in-production',
    ...Object.fromEntries(upstreams),
  };
}

/** The demo tenant and client, with the id and secret of RM_DEMO_CLIENT_ID / RM_DEMO_CLIENT_SECRET. */
async function seedDemoClient(): Promise<void> {
  await promisify(execFile)(process.execPath, [join(root, 'services/gateway/dist/cli/clients.js'), 'ensure', '--tenant', DEMO_TENANT, '--id', DEMO_CLIENT_ID], {
    env: { ...process.env, MONGO_URL: servers.mongoUrl, MONGO_DB: 'gateway', RM_CLIENT_SECRET: DEMO_CLIENT_SECRET },
  });
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

function printWelcome(): void {
  const lines = ['', 'Resource management dev stack is up:'];
  for (const name of services) {
    const origin = `http://127.0.0.1:${SERVICE_PORTS[name]}`;
    lines.push(`  ${name.padEnd(20)} ${origin}   (${origin}/healthz, ${origin}/readyz)`);
  }
  lines.push(
    '',
    `Token URL:    ${GATEWAY}/oauth2/token`,
    `API base URL: ${GATEWAY}${BASE_PATH}`,
    `Demo client of tenant '${DEMO_TENANT}': ${DEMO_CLIENT_ID} / ${DEMO_CLIENT_SECRET}  (RM_DEMO_CLIENT_ID, RM_DEMO_CLIENT_SECRET)`,
    '',
    'Get a token, then call the API through the gateway:',
    `  export TOKEN=$(curl -s -u '${DEMO_CLIENT_ID}:${DEMO_CLIENT_SECRET}' -d grant_type=client_credentials ${GATEWAY}/oauth2/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `  curl -H "Authorization: Bearer $TOKEN" ${GATEWAY}${BASE_PATH}/ping`,
    `  curl -H "Authorization: Bearer $TOKEN" ${GATEWAY}${BASE_PATH}/employee`,
    '',
    'Ctrl-C stops everything this started.',
    '',
  );
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
  await servers.stop();
  process.exit(exitCode);
}
