// npm start: the dev stack. Starts (or reuses, from MONGO_URL / NATS_URL) a MongoDB-compatible server
// and nats-server, starts every built service with prefixed logs behind the gateway, waits until each
// is ready, seeds the demo tenant and client, prints how to get a token and call the API, and stops
// everything it started on Ctrl-C.
import { describeServers, startRunServers, TEST_NATS_ADMIN, testNatsPassword } from '@rm/testkit';
import { startStack, BASE_PATH, type ServiceName, type Stack } from './stack.ts';

/** Fixed local ports, so that URLs stay the same from run to run. */
const SERVICE_PORTS: Record<ServiceName, number> = {
  gateway: 3000,
  employees: 3001,
  'transport-resources': 3002,
  'home-bases': 3003,
  deployments: 3004,
  matching: 3005,
  webhooks: 3006,
};
const GATEWAY = `http://127.0.0.1:${SERVICE_PORTS.gateway}`;
const DEMO_TENANT = process.env.RM_DEMO_TENANT ?? 'demo';
const DEMO_CLIENT_ID = process.env.RM_DEMO_CLIENT_ID ?? 'demo-client';
const DEMO_CLIENT_SECRET = process.env.RM_DEMO_CLIENT_SECRET ?? 'demo-secret-for-local-use-only';
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? 'dev-only-operators-token-never-in-production';
// the password of every NATS user of a nats-server started here (each service's, and the admin's)
process.env.RM_TEST_NATS_PASSWORD ??= 'dev-only-nats-password-never-in-production';

const servers = await startRunServers();
let stack: Stack | undefined;
let stopping = false;

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  console.log(`dev stack: ${await describeServers(servers)}`);
  stack = await startStack({
    ...servers,
    ports: SERVICE_PORTS,
    logLevel: process.env.LOG_LEVEL,
    natsPassword: testNatsPassword(),
    cursorSecret: process.env.CURSOR_SECRET,
    adminToken: ADMIN_TOKEN,
    signingKeyEncryptionKey: process.env.SIGNING_KEY_ENCRYPTION_KEY ?? 'dev-only-signing-key-encryption-key-never-in-production',
    internalApiKey: process.env.INTERNAL_API_KEY ?? 'dev-only-internal-api-key-never-in-production',
    onLine: (name, line) => console.log(`[${name}] ${line}`),
    onExit(name, reason) {
      console.error(`dev stack: ${name} exited (${reason}); stopping the stack`);
      // while starting, startStack itself fails and stops the others
      if (stack !== undefined) void stop(1);
    },
  });
  // the demo tenant and client, with the id and secret of RM_DEMO_CLIENT_ID / RM_DEMO_CLIENT_SECRET
  await stack.ensureClient(DEMO_TENANT, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET);
  printWelcome(stack);
} catch (error) {
  console.error(`dev stack: ${error instanceof Error ? error.message : String(error)}`);
  await stop(1);
}

function printWelcome({ services, origins }: Stack): void {
  const lines = ['', 'Resource management dev stack is up:'];
  for (const name of services) {
    const origin = origins[name];
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
    'Every service at one look (ADMIN_TOKEN):',
    `  curl -H 'Authorization: Bearer ${ADMIN_TOKEN}' ${GATEWAY}/admin/health`,
    '',
    `NATS (${servers.natsUrl}) refuses anonymous clients; each service is a user of its name, and the`,
    `admin may do anything: user ${TEST_NATS_ADMIN}, password ${testNatsPassword()} (RM_TEST_NATS_PASSWORD).`,
    'Play the planning platform (services/deployments/README.md):',
    `  ALLOW_DEV_ONLY_SECRETS=true NATS_URL=${servers.natsUrl} NATS_PASSWORD='${testNatsPassword()}' npm run planning -- release <tenant> <route> <file.json>`,
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
  await stack?.stop();
  await servers.stop();
  process.exit(exitCode);
}
