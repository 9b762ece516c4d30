// Gateway: what the gateway adds to a call (its token check, routing, forwarding over pooled
// connections, the owner's answer streamed back), against the same call made directly to the
// service; token issuance per second next to the secret hash it is built around; and another
// tenant's reads while the token endpoint, or the API, is flooded.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { findFreePort, TEST_INTERNAL_API_KEY, testNatsPassword } from '@rm/testkit';
import { createClientRegistry, DEFAULT_SECRET_HASH_COST, hashClientSecret, verifyClientSecret } from '@rm/gateway/testing';
import type { Bench, BenchContext } from './lib/bench.ts';
import { employeeFields } from './lib/employee-fixture.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { startFlood } from './lib/flood.ts';
import { residentMemory } from './lib/process-memory.ts';
import { measureSeries, warmUp, type SeriesResult } from './lib/series.ts';
import { percentile, sortedAscending } from './lib/stats.ts';
import { POD_NODE_OPTIONS } from './lib/pod-node-options.ts';

const BASE = '/resource-management/v1';
const ISSUER = 'http://127.0.0.1/bench-gateway';
const TENANT = 'bench';
const READS = { 1: 1_000, 32: 3_000 } as const;
/** Token requests per series; each of the first series' is its client's first (its secret hashed, not yet remembered). */
const TOKENS = 60;
/** The gateway's TOKEN_RATE_LIMIT_PER_CLIENT here: production's is 5. */
const TOKEN_RATE_PER_CLIENT = 30;
const TOKEN_IN_FLIGHT = [1, 4];
/** The flooding client's token requests in flight, and the reads measured beside them. */
const TOKEN_FLOOD_IN_FLIGHT = 64;
const FLOOD_READS = 1_000;
/** The noisy tenant's own request rate, and how many times that it asks for (open loop). */
const NOISY_TENANT_RATE = 100;
const NOISY_TENANT_OVERLOAD = 10;
const ROOT = join(import.meta.dirname, '..');

export const gatewayBench: Bench = {
  name: 'gateway',
  async run(context) {
    const gatewayPort = await findFreePort();
    const employeesPort = await findFreePort();
    const gatewayDb = context.database('bench_gateway');
    const common = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', MONGO_URL: process.env.MONGO_URL!, NATS_URL: process.env.NATS_URL!, NATS_PASSWORD: testNatsPassword(), AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: 'resource-management' };
    // Separate processes, as deployed: the bench's client does not share their event loops.
    const gateway = startProcess('gateway', {
      ...common,
      NODE_OPTIONS: POD_NODE_OPTIONS,
      PORT: String(gatewayPort),
      MONGO_DB: gatewayDb.databaseName,
      SIGNING_KEY_ENCRYPTION_KEY: 'bench-only-signing-key-encryption-key-0123456789',
      UPSTREAM_EMPLOYEES_URL: `http://127.0.0.1:${employeesPort}`,
      // the bench is one IP asking for many tokens, some with wrong secrets on purpose; one client's
      // wrong secrets go at about 15 a second, under the rate per client, which the token flood meets
      TOKEN_RATE_LIMIT: '100000',
      TOKEN_RATE_LIMIT_PER_CLIENT: String(TOKEN_RATE_PER_CLIENT),
      LOGIN_FAILURE_LIMIT: '10000',
      // and one tenant reading as fast as it can; the noisy tenant of the last part has a limit of its own
      TENANT_REQUEST_RATE: '1000000',
      ...tokenHashSettings(process.env.BENCH_TOKEN_HASH),
    });
    const employees = startProcess('employees', {
      ...common,
      PORT: String(employeesPort),
      MONGO_DB: context.database('bench_gw_employees').databaseName,
      AUTH_JWKS_URL: `http://127.0.0.1:${gatewayPort}/.well-known/jwks.json`,
      CURSOR_SECRET: 'bench-only-cursor-secret-0123456789abcdef',
      TRUST_PROXY: '127.0.0.1',
      // required; the bench's employee names no home base, so it is never called
      HOME_BASES_URL: 'http://127.0.0.1:9/resource-management/v1',
      INTERNAL_API_KEY: TEST_INTERNAL_API_KEY,
    });
    const toGateway = new Pool(`http://127.0.0.1:${gatewayPort}`, { connections: 64 });
    const toEmployees = new Pool(`http://127.0.0.1:${employeesPort}`, { connections: 64 });
    try {
      await Promise.all([waitUntilReady(gateway, toGateway), waitUntilReady(employees, toEmployees)]);
      const registry = createClientRegistry(gatewayDb);
      await registry.createTenant(TENANT);
      const client = await registry.createClient({ tenant: TENANT });
      const token = await issueToken(toGateway, client.clientId, client.secret);
      await putEmployee(toEmployees, token);

      const rows: ReportRow[] = [];
      await compareReads(context, { toGateway, toEmployees, token }, rows);
      printTable('Gateway: authenticated GET /employee/{id} through the gateway vs directly to the service (both verify the token)', rows);
      printAddedLatency(rows);

      const tokenRows: ReportRow[] = [];
      await compareTokens(context, { toGateway, registry, clientId: client.clientId, secret: client.secret }, tokenRows);
      printTable(`Token issuance (scrypt N = 2^${DEFAULT_SECRET_HASH_COST}, r = 8, p = 1) vs the secret check alone; failed logins vs each other`, tokenRows);

      const saturatedRows: ReportRow[] = [];
      const flooder = { origin: `http://127.0.0.1:${gatewayPort}`, clientId: client.clientId, secret: client.secret };
      const answers = await compareReadsUnderTokenLoad(context, { toGateway, toEmployees, token }, flooder, saturatedRows);
      printTable(`API reads through the gateway while one client keeps ${TOKEN_FLOOD_IN_FLIGHT} token requests in flight vs unloaded`, saturatedRows);
      console.log(`\ntoken requests answered during the loaded series: ${[...answers].map(([status, count]) => `${count}× ${status}`).join(', ')}`);

      const fairnessRows: ReportRow[] = [];
      const noisy = await noisyTenants(registry, toGateway);
      const noisyAnswers = await compareReadsUnderTenantFlood(context, { toGateway, toEmployees, token }, { origin: flooder.origin, ...noisy }, fairnessRows);
      printTable(
        `Another tenant's reads while one tenant asks ${NOISY_TENANT_OVERLOAD}× its limit of ${NOISY_TENANT_RATE}/s (${NOISY_TENANT_RATE * NOISY_TENANT_OVERLOAD}/s) vs unloaded, and the same flood from a tenant without a limit`,
        fairnessRows,
      );
      for (const [who, statuses] of noisyAnswers) console.log(`\n${who}: ${[...statuses].map(([status, count]) => `${count}× ${status}`).join(', ')}`);

      const memory = await residentMemory(gateway.child.pid!);
      console.log(`\ngateway's resident memory (NODE_OPTIONS=${POD_NODE_OPTIONS}, as in its pod, limit 384 MiB): ${memory.nowMiB.toFixed(0)} MiB now, ${memory.peakMiB.toFixed(0)} MiB at its peak`);
    } finally {
      await toGateway.close();
      await toEmployees.close();
      await Promise.all([stopProcess(gateway), stopProcess(employees)]);
    }
  },
};

interface Targets {
  toGateway: Pool;
  toEmployees: Pool;
  token: string;
}

/** `<concurrency>,<queue>` (BENCH_TOKEN_HASH) as the gateway's TOKEN_HASH_CONCURRENCY and TOKEN_HASH_QUEUE; none: its defaults. */
function tokenHashSettings(setting: string | undefined): Record<string, string> {
  if (setting === undefined) return {};
  const [concurrency = '', queue = ''] = setting.split(',');
  return { TOKEN_HASH_CONCURRENCY: concurrency, TOKEN_HASH_QUEUE: queue };
}

/** An authenticated GET of the bench's employee; fails unless it answers 200. */
async function readEmployee(pool: Pool, token: string): Promise<void> {
  const { statusCode, body } = await pool.request({ method: 'GET', path: `${BASE}/employee/e-1`, headers: { authorization: `Bearer ${token}` } });
  await body.dump();
  if (statusCode !== 200) throw new Error(`GET answered ${statusCode}`);
}

async function compareReads(context: BenchContext, { toGateway, toEmployees, token }: Targets, rows: ReportRow[]): Promise<void> {
  const read = (pool: Pool) => () => readEmployee(pool, token);
  await warmUp({ ops: 200, concurrency: 8, operation: read(toEmployees) });
  await warmUp({ ops: 200, concurrency: 8, operation: read(toGateway) });
  for (const concurrency of [1, 32] as const) {
    const ops = READS[concurrency];
    const baseline = await measureSeries(context.probe, { label: 'GET directly to employees', ops, concurrency, operation: read(toEmployees) });
    const result = await measureSeries(context.probe, { label: 'GET through the gateway', ops, concurrency, operation: read(toGateway) });
    rows.push({ result: baseline }, { result, baseline });
  }
}

function printAddedLatency(rows: ReportRow[]): void {
  for (const { result, baseline } of rows) {
    if (baseline === undefined) continue;
    const added = p50(result) - p50(baseline);
    console.log(`\n${result.label}, ${result.concurrency} in flight: p50 +${added.toFixed(2)} ms over the direct call`);
  }
}

/**
 * A client's first token (its secret hashed: a replica remembers a secret it verified, and the same
 * secret again costs no hash), one client per request, next to the hash alone; then failed logins.
 */
async function compareTokens(
  context: BenchContext,
  { toGateway, registry, clientId, secret }: { toGateway: Pool; registry: ReturnType<typeof createClientRegistry>; clientId: string; secret: string },
  rows: ReportRow[],
): Promise<void> {
  const stored = await hashClientSecret(secret);
  const check = async () => {
    if (!(await verifyClientSecret(secret, stored))) throw new Error('the secret did not verify');
  };
  const login = (id: string, password: string, expected: number) => async () => {
    const { status } = await tokenRequest(toGateway, id, password);
    if (status !== expected) throw new Error(`token request answered ${status}`);
  };
  const firstTokens = async () => {
    const clients: { clientId: string; secret: string }[] = [];
    for (let index = 0; index < TOKENS; index += 1) clients.push(await registry.createClient({ tenant: TENANT }));
    return (index: number) => login(clients[index]!.clientId, clients[index]!.secret, 200)();
  };
  await warmUp({ ops: 10, operation: await firstTokens() });
  for (const concurrency of TOKEN_IN_FLIGHT) {
    const baseline = await measureSeries(context.probe, { label: 'verifyClientSecret() alone', ops: TOKENS, concurrency, operation: check });
    const result = await measureSeries(context.probe, { label: "POST /oauth2/token, each its client's first", ops: TOKENS, concurrency, operation: await firstTokens() });
    rows.push({ result: baseline }, { result, baseline });
  }
  // The same answer must take the same time whether or not the client exists.
  const wrongSecret = await measureSeries(context.probe, { label: 'wrong secret of a known client (401)', ops: TOKENS / 2, operation: login(clientId, 'wrong', 401) });
  const unknownClient = await measureSeries(context.probe, { label: 'unknown client (401)', ops: TOKENS / 2, operation: login('no-such-client', 'wrong', 401) });
  rows.push({ result: wrongSecret }, { result: unknownClient, baseline: wrongSecret });
}

/**
 * Another tenant's reads through the gateway, unloaded and then while one client floods the token
 * endpoint (TOKEN_FLOOD_IN_FLIGHT requests at once, in a worker thread: lib/flood.ts): it gets its
 * rate per client (TOKEN_RATE_PER_CLIENT), its secret recognised after the first hash, and 429 for the
 * rest. Returns the flood's answers by status (its first second's included).
 */
async function compareReadsUnderTokenLoad(
  context: BenchContext,
  { toGateway, token }: Targets,
  { origin, clientId, secret }: { origin: string; clientId: string; secret: string },
  rows: ReportRow[],
): Promise<Map<number, number>> {
  const read = () => readEmployee(toGateway, token);
  const baseline = await measureSeries(context.probe, { label: 'GET through the gateway, unloaded', ops: FLOOD_READS, operation: read });
  let answers = new Map<number, number>();
  const flood = startFlood({ origin, request: tokenRequestOf(clientId, secret), inFlight: TOKEN_FLOOD_IN_FLIGHT });
  try {
    // the flood at full strength first
    await sleep(1_000);
    const result = await measureSeries(context.probe, { label: 'GET through the gateway, token endpoint flooded', ops: FLOOD_READS, operation: read });
    rows.push({ result: baseline }, { result, baseline });
  } finally {
    answers = await flood.stop();
  }
  return answers;
}

/** Tokens of two more tenants, each with the bench's employee: one limited to NOISY_TENANT_RATE, one not. */
async function noisyTenants(registry: ReturnType<typeof createClientRegistry>, toGateway: Pool): Promise<{ limited: string; unlimited: string }> {
  const tokens = [];
  for (const [tenant, rate] of [['bench-noisy', NOISY_TENANT_RATE], ['bench-unlimited', 1_000_000]] as const) {
    await registry.createTenant(tenant);
    await registry.setTenantLimits(tenant, { requestsPerSecond: rate });
    const client = await registry.createClient({ tenant });
    const token = await issueToken(toGateway, client.clientId, client.secret);
    await putEmployee(toGateway, token);
    tokens.push(token);
  }
  return { limited: tokens[0]!, unlimited: tokens[1]! };
}

/**
 * Another tenant's reads through the gateway: unloaded; while a tenant limited to NOISY_TENANT_RATE
 * asks NOISY_TENANT_OVERLOAD times that (paced, in a worker thread: lib/paced-reads.ts); and while a
 * tenant without a limit asks the same, which shows what the limit spares the others. Returns each
 * flood's answers by status (the first second's included).
 */
async function compareReadsUnderTenantFlood(
  context: BenchContext,
  { toGateway, token }: Targets,
  noisy: { origin: string; limited: string; unlimited: string },
  rows: ReportRow[],
): Promise<Map<string, Map<number, number>>> {
  const read = () => readEmployee(toGateway, token);
  const baseline = await measureSeries(context.probe, { label: 'GET through the gateway, unloaded', ops: FLOOD_READS, operation: read });
  rows.push({ result: baseline });
  const answers = new Map<string, Map<number, number>>();
  for (const [who, noisyToken] of [['tenant at 10× its limit', noisy.limited], ['tenant without a limit, same rate', noisy.unlimited]] as const) {
    const request = { method: 'GET', path: `${BASE}/employee/e-1`, headers: { authorization: `Bearer ${noisyToken}` } } as const;
    const flood = startFlood({ origin: noisy.origin, request, perSecond: NOISY_TENANT_RATE * NOISY_TENANT_OVERLOAD });
    try {
      await sleep(1_000);
      const result = await measureSeries(context.probe, { label: `GET through the gateway, another ${who}`, ops: FLOOD_READS, operation: read });
      rows.push({ result, baseline });
    } finally {
      answers.set(who, await flood.stop());
    }
  }
  return answers;
}

/** A token request by HTTP Basic. */
function tokenRequestOf(clientId: string, secret: string) {
  return {
    method: 'POST',
    path: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  } as const;
}

/** A token request: its status, and the token when there is one. */
async function tokenRequest(pool: Pool, clientId: string, secret: string): Promise<{ status: number; token?: string }> {
  const { statusCode, body } = await pool.request(tokenRequestOf(clientId, secret));
  const answer = (await body.json()) as { access_token?: string };
  return { status: statusCode, ...(answer.access_token === undefined ? {} : { token: answer.access_token }) };
}

async function issueToken(pool: Pool, clientId: string, secret: string): Promise<string> {
  const { status, token } = await tokenRequest(pool, clientId, secret);
  if (token === undefined) throw new Error(`token request answered ${status}`);
  return token;
}

async function putEmployee(pool: Pool, token: string): Promise<void> {
  const { statusCode, body } = await pool.request({
    method: 'PUT',
    path: `${BASE}/employee/e-1`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(employeeFields(1)),
  });
  await body.dump();
  if (statusCode !== 201) throw new Error(`PUT answered ${statusCode}`);
}

interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output: string[];
}

function startProcess(name: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [join(ROOT, 'services', name, 'dist', 'main.js')], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean).slice(-20));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { name, child, output };
}

async function waitUntilReady(service: ServiceProcess, pool: Pool): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`${service.name} exited: ${service.output.slice(-5).join('\n')}`);
    const status = await pool.request({ method: 'GET', path: '/readyz' }).then(async ({ statusCode, body }) => (await body.dump(), statusCode), () => 0);
    if (status === 200) return;
    await sleep(200);
  }
  throw new Error(`${service.name} was not ready within 60 s: ${service.output.slice(-5).join('\n')}`);
}

async function stopProcess({ child }: ServiceProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

function p50(result: SeriesResult): number {
  return percentile(sortedAscending(result.latenciesMs), 50);
}
