// Servers restarted under write load: on a nats-server and a FerretDB of its own, writers put employees,
// availabilities and transport resources through the gateway while nats-server, then FerretDB, then
// FerretDB's PostgreSQL are taken away for a few seconds and brought back. Meanwhile services must answer
// 503 (no other 5xx, no hang); afterwards they must recover without a restart, every acknowledged write
// must read back and every event must have reached every consumer once in effect.
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '@rm/client';
import { loadTestkitConfig, startMongoServer, startNatsServer } from '@rm/testkit';
import { eventually } from '../lib/api.ts';
import { bodies } from '../lib/fixtures.ts';
import { excerpt, type ScenarioReport, type Size } from '../lib/report.ts';
import { startSuiteStack, type SuiteStack, type TypedClient } from '../lib/suite-stack.ts';
import { startTcpProxy } from '../lib/tcp-proxy.ts';
import { PAUSE_MS, startWriteLoad, WRITERS } from '../lib/write-load.ts';

/** Writing before the first outage and after each recovery. */
const WRITE_MS: Record<Size, number> = { full: 8_000, short: 4_000 };
/**
 * Services wait for the database up to MONGO_OPERATION_TIMEOUT_MS (10 s) before answering 503: the full
 * outages outlast it, the short ones end within it (requests wait, then succeed).
 */
const DOWN_MS: Record<Size, number> = { full: 12_000, short: 3_000 };
/** After a recovery, a service may still meet its driver's connections from before the outage. */
const GRACE_MS = 2_000;
const HANG_MS = 15_000;
const RECOVER_MS = 60_000;

interface Outage {
  from: number;
  to: number;
}

/** What the scenario takes away and brings back. */
interface Restartable {
  kill(): Promise<void>;
  start(): Promise<void>;
}

/**
 * The servers it stops are its own, never the run's. Its FerretDB keeps its data in a database of its own
 * on the machine's PostgreSQL, which other users share, so that server is never stopped: FerretDB reaches
 * it through a TCP proxy of the scenario's, and "PostgreSQL away" is that proxy stopped (every connection
 * reset, new ones refused), which is what FerretDB sees of a PostgreSQL that crashed or is cut off.
 */
export async function serversRestarted(size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const config = loadTestkitConfig();
  const postgres = new URL(config.postgresUrl);
  const proxy = await startTcpProxy({ host: postgres.hostname, port: Number(postgres.port || 5432) });
  try {
    postgres.host = `127.0.0.1:${proxy.port}`;
    const [nats, mongo] = await Promise.all([startNatsServer(), startMongoServer({ ...config, postgresUrl: postgres.toString() })]);
    try {
      const suite = await startSuiteStack({ mongoUrl: mongo.url, natsUrl: nats.url }, { echoLogs: process.env.RELIABILITY_LOGS === '1' });
      // without PostgreSQL, FerretDB keeps its data in SQLite files: there is no PostgreSQL to take away
      const onPostgres = mongo.backend?.startsWith('PostgreSQL') === true;
      try {
        const servers = { 'nats-server': nats, FerretDB: mongo, ...(onPostgres ? { PostgreSQL: proxy } : {}) };
        return await underLoad(suite, size, servers, started);
      } finally {
        await suite.stop();
      }
    } finally {
      await Promise.all([nats.stop(), mongo.stop()]);
    }
  } finally {
    await proxy.stop();
  }
}

async function underLoad(
  suite: SuiteStack,
  size: Size,
  servers: Record<string, Restartable>,
  started: number,
): Promise<ScenarioReport> {
  const tenant = await suite.newTenant('restart');
  const outages: Outage[] = [];
  // every service needs every one of these servers, so an outage explains a 503 from any of them
  const load = startWriteLoad(suite, tenant, {
    prefix: 'restart',
    rule: 'no 5xx outside an outage, and only 503 during one',
    refusal: (_owners, status, sentAt) => status === 503 && outages.some(({ from, to }) => sentAt <= to && Date.now() >= from),
    hangMs: HANG_MS,
  });
  const { findings } = load;
  // one attempt per poll of the recovery: the polls are its retries, and their time is what is measured
  const probe = suite.client(tenant, { retries: 0 });
  const recoveries: string[] = [];
  const notReady: string[] = [];
  try {
    await sleep(WRITE_MS[size]);
    for (const [name, server] of Object.entries(servers)) {
      const outage = { from: Date.now(), to: Number.POSITIVE_INFINITY };
      outages.push(outage);
      await server.kill();
      await sleep(DOWN_MS[size]);
      const ready = await Promise.all(suite.stack.services.map((service) => readyzAnswer(suite.stack.origins[service])));
      notReady.push(`${name} ${ready.filter((answer) => !answer.startsWith('200')).length} of ${ready.length}`);
      await server.start();
      const restarted = performance.now();
      const failing = await recover(suite, probe);
      const seconds = ((performance.now() - restarted) / 1000).toFixed(1);
      recoveries.push(`${name} ${failing === undefined ? `${seconds} s` : `not within ${RECOVER_MS / 1000} s`}`);
      if (failing !== undefined) {
        findings.push({
          rule: 'the services recover without a restart',
          request: `every /readyz, then PUT /employee/restart-probe, ${RECOVER_MS / 1000} s after ${name} started again`,
          excerpt: failing,
        });
      }
      outage.to = Date.now() + GRACE_MS;
      await sleep(WRITE_MS[size]);
    }
  } finally {
    await load.stop();
  }

  const lostWrites = await load.readBack();
  // a list that still fails after the recovery is a finding, not the end of the report
  const snapshots = await load.checkSnapshots().catch((error: Error) => {
    findings.push({ rule: 'the services recover without a restart', request: "the matching engine's lists", excerpt: error.message });
    return undefined;
  });
  const copiesBehind = await load.checkConsumers();
  for (const exit of suite.exits) findings.push({ rule: 'no service exits', request: 'the stack', excerpt: exit });

  return {
    name: 'servers-restarted',
    did:
      `On a nats-server and a FerretDB of its own, ${WRITERS} writers through the gateway (one request each every ` +
      `${PAUSE_MS} ms or so) put employees (new and updates), availabilities (a day apart per employee; a create ` +
      'without an answer or with a 503 sent again with its Idempotency-Key) and transport ' +
      `resources (new and updates), while ${Object.keys(servers).join(', then ')} went away for ${DOWN_MS[size] / 1000} s ` +
      ('PostgreSQL' in servers
        ? "(PostgreSQL, the machine's shared server, through a proxy of the scenario's that reset every connection and refused new ones), "
        : '') +
      'came back on the same port with the same data, and were followed by ' +
      `${WRITE_MS[size] / 1000} s of writing (services wait up to 10 s for the database, MONGO_OPERATION_TIMEOUT_MS, before ` +
      `answering 503). Meanwhile only 503 may be refused; any other 5xx, no answer, or an answer after ${HANG_MS / 1000} s ` +
      'is a finding. Then every acknowledged write was read back, every stored availability checked to be an ' +
      "acknowledged one, the matching engine's " +
      'snapshots were compared with the stored availabilities once its lists stayed the same for 3 s, and the ' +
      "deployments and home-bases services' copies of every employee and transport resource with its last version.",
    rows: [
      ...load.rows(`503 while a server was down (until ${GRACE_MS / 1000} s after recovery)`, lostWrites),
      [`requests without an answer within ${HANG_MS / 1000} s; longest wait for an answer`, `${load.hung}; ${load.slowest / 1000} s`],
      ['services whose /readyz was not 200 at the end of each outage', notReady.join(', ')],
      ['time to recover (server started → every /readyz 200 and a write 2xx)', recoveries.join(', ')],
      [
        'availabilities stored, snapshots in the engine',
        snapshots === undefined ? 'the engine did not answer' : `${snapshots.storedCount}, ${snapshots.live.snapshots.length}`,
      ],
      ["copies behind the last version (deployments' known resources, home-bases' references)", copiesBehind],
      ['service processes that exited', suite.exits.length],
    ],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Polls until every service answers /readyz 200 and a write through the gateway succeeds: undefined, or after
 * RECOVER_MS what was still failing.
 */
async function recover(suite: SuiteStack, probe: TypedClient): Promise<string | undefined> {
  const { services, origins } = suite.stack;
  let failing = '';
  const recovered = await eventually(async () => {
    const answers = await Promise.all(services.map(async (name) => [name, await readyzAnswer(origins[name])] as const));
    const notReady = answers.filter(([, answer]) => !answer.startsWith('200'));
    failing = notReady.map(([name, answer]) => `${name} /readyz ${answer}`).join('; ');
    if (notReady.length > 0) return false;
    failing = await probe.upsertEmployee('restart-probe', bodies.employee('probe')).then(
      () => '',
      (error: unknown) => `PUT /employee/restart-probe: ${error instanceof ApiError ? excerpt(error.message) : 'no answer'}`,
    );
    return failing === '';
  }, RECOVER_MS);
  return recovered ? undefined : failing;
}

/** A service's /readyz status and body, or how it failed. */
const readyzAnswer = (origin: string) =>
  fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
    async (response) => `${response.status} ${excerpt(await response.text(), 120)}`,
    (error: Error) => `no answer (${error.name})`,
  );
