// Slow headers: many connections to the gateway that send their request headers a few bytes at a time
// and never finish them, while a tenant reads as it always does. The tenant must be answered every
// time, and the gateway must close each slow connection once its headers timeout (10 s, service-kit's
// server) has passed, rather than hold it for a minute or more.
import { connect, type Socket } from 'node:net';
import { apiClient } from '../lib/api.ts';
import { bodies } from '../lib/fixtures.ts';
import { excerpt, type Finding, type ScenarioReport, type Size } from '../lib/report.ts';
import { BASE_PATH, type SuiteStack } from '../lib/suite-stack.ts';

const CONNECTIONS: Record<Size, number> = { full: 300, short: 50 };
/** Longest the slow connections are held: past the headers timeout (10 s) and Node's check of it (every second). */
const HOLD_MS = 20_000;
const DRIP_MS = 1_000;
const READ_EVERY_MS = 100;

type Rows = [string, string | number][];

export async function slowHeaders(suite: SuiteStack, size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const findings: Finding[] = [];
  const tenant = await suite.newTenant('slow-headers');
  await suite.client(tenant).upsertEmployee('steady', bodies.employee());
  // the reads whose answers are checked: raw, one request each
  const api = apiClient(suite, tenant);
  const { hostname, port } = new URL(suite.stack.gateway);

  const opened = performance.now();
  const slow = await Promise.all(Array.from({ length: CONNECTIONS[size] }, () => slowConnection(hostname, Number(port))));
  const latencies: number[] = [];
  let failed = 0;
  while (performance.now() - opened < HOLD_MS && !slow.every((connection) => connection.closedAt !== undefined)) {
    const begin = performance.now();
    const answer = await api.call('GET', '/employee/steady');
    latencies.push(performance.now() - begin);
    if (answer.status !== 200) {
      failed += 1;
      if (failed <= 3) findings.push({ rule: 'a tenant is answered while others hold connections open', request: `GET ${BASE_PATH}/employee/steady`, status: answer.status, excerpt: excerpt(answer.body) });
    }
    await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
  }
  const closedByServer = slow.filter((connection) => connection.closedAt !== undefined);
  const closeTimes = closedByServer.map((connection) => (connection.closedAt! - opened) / 1000).sort((a, b) => a - b);
  for (const connection of slow) connection.stop();
  if (closedByServer.length < slow.length) {
    findings.push({
      rule: 'the gateway closes a connection whose headers never end, once its headers timeout has passed',
      request: `${slow.length} connections sending a header line every ${DRIP_MS / 1000} s`,
      excerpt: `${slow.length - closedByServer.length} still open after ${HOLD_MS / 1000} s`,
    });
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const rows: Rows = [
    ['slow connections opened', slow.length],
    ['of them closed by the gateway', closedByServer.length],
    ['closed after, first / last s', closeTimes.length === 0 ? '–' : `${closeTimes[0]!.toFixed(0)} / ${closeTimes.at(-1)!.toFixed(0)}`],
    ["the steady tenant's reads meanwhile", latencies.length],
    ['of them not 200', failed],
    ['their p50 / p99 ms', `${percentile(sorted, 50).toFixed(1)} / ${percentile(sorted, 99).toFixed(1)}`],
  ];
  return {
    name: 'slow-headers',
    did:
      `${CONNECTIONS[size]} connections to the gateway each send a request line and then one header line every ${DRIP_MS / 1000} s, never ending their ` +
      `headers; meanwhile a tenant reads its employee every ${READ_EVERY_MS} ms and must get 200 each time. Every slow connection must have ` +
      `been closed by the gateway within ${HOLD_MS / 1000} s (its headers timeout, 10 s, checked every second).`,
    rows,
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

interface SlowConnection {
  /** When the gateway closed it (performance.now()); undefined while open. */
  closedAt?: number;
  stop(): void;
}

function slowConnection(host: string, port: number): Promise<SlowConnection> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host, port });
    const connection: SlowConnection = {
      stop() {
        clearInterval(drip);
        socket.destroy();
      },
    };
    let line = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${(line += 1)}: still coming\r\n`);
    }, DRIP_MS);
    socket.once('connect', () => {
      socket.write(`GET ${BASE_PATH}/employee HTTP/1.1\r\nHost: ${host}\r\n`);
      resolve(connection);
    });
    socket.on('data', () => undefined);
    socket.once('close', () => {
      clearInterval(drip);
      connection.closedAt ??= performance.now();
    });
    // before the connection: it could not be opened; after: the gateway reset it, which 'close' records
    socket.on('error', reject);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
