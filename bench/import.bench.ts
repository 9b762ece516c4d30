// Bulk load (issue 29): POST /import on the whole stack as `npm start` runs it (scripts/stack.ts: every
// service a process of its own, without the pods' heap limit, on the run's FerretDB and nats-server). For
// each size (BENCH_IMPORT_EMPLOYEES) an employee PUT and one availability POST per employee, as NDJSON
// lines of one import (the gateway sends IMPORT_CONCURRENCY, 16, at once, the lines of one employee in
// order), against the same writes as single calls through the gateway with 8 and 16 employees in flight
// (load.bench.ts's client). Employees and 200 trucks start at 20 places, so that the engine matches as
// the writes go. Each case runs on a stack of its own, started for it (fresh databases, an idle engine):
// - the wall time from the request sent until its last answer, lines per second, the answers by status,
//   and whether every line was answered once and in order;
// - then the time until the matching engine shows an AvailableEmployee for every availability written
//   (GET /available-employee?limit=1000 through the gateway, page by page, once a second);
// - the gateway's resident memory at its peak (the import spools its body to a file and holds a window
//   of lines).
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { testServers } from '@rm/testkit';
import { bodies } from '../reliability/lib/fixtures.ts';
import { createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions } from '../scripts/stack.ts';
import type { Bench } from './lib/bench.ts';
import { API_BASE, bearer } from './lib/gateway-calls.ts';
import { issueToken } from './lib/gateway-token.ts';
import { residentMemory } from './lib/process-memory.ts';
import { printMarkdown } from './lib/report.ts';
import { msSince } from './lib/stats.ts';

const SIZES = (process.env.BENCH_IMPORT_EMPLOYEES ?? '1000,5000').split(',').map(Number);
/** Single calls: employees in flight at once, each its PUT then its POST (load.bench.ts sends 8); empty: none. */
const SINGLE_IN_FLIGHT = (process.env.BENCH_IMPORT_IN_FLIGHT ?? '8,16').split(',').filter((each) => each.trim() !== '').map(Number);
const TRUCKS = 200;
const PLACES = 20;
/** How often the AvailableEmployees are counted while waiting for the engine. */
const COUNT_EVERY_MS = 1_000;
/** The engine not showing every availability by then is a result too. */
const CONVERGE_TIMEOUT_MS = 600_000;
/** Issue 29's goals: 10,000 employees and 10,000 availabilities in 60 s, matching converged 15 s after. */
const GOAL_EMPLOYEES = 10_000;
const GOAL_IMPORT_S = 60;
const GOAL_CONVERGED_S = 15;

/** An employee's or a truck's start place: one of PLACES. */
const startAt = (index: number) => ({ start_location: { name: `Depot ${index % PLACES}`, geo_point: { latitude: 52.09, longitude: 5.12 } } });

interface Write {
  method: 'PUT' | 'POST';
  path: string;
  body: object;
}

/** Employee `index` and its availability, on a day of the fortnight (as load.bench.ts writes them). */
function writesOf(index: number): [Write, Write] {
  const id = `e-${index}`;
  return [
    { method: 'PUT', path: `/employee/${id}`, body: { ...bodies.employee(), ...startAt(index) } },
    { method: 'POST', path: `/employee/${id}/availability`, body: bodies.availability((index % 14) * 24 + 6) },
  ];
}

/** What one case came to: what its writes came to, and around them. */
interface CaseFigures extends Outcome {
  name: string;
  employees: number;
  writes: number;
  converged: { afterMs: number; countMs: number; shown: number } | { timedOutAfterMs: number; shown: number };
  gatewayPeakMiB: number;
  /** Log lines at warn or above, by service: how many, and the first one's message. */
  warnings: Map<string, { count: number; first: string }>;
}

export const importBench: Bench = {
  name: 'import',
  async run() {
    const servers = testServers();
    const sizes: CaseFigures[][] = [];
    for (const employees of SIZES) {
      const cases: CaseFigures[] = [];
      cases.push(await onStack(servers, employees, 'POST /import (16 lines at once)', (client, writes) => importAll(client, writes)));
      for (const inFlight of SINGLE_IN_FLIGHT) {
        cases.push(await onStack(servers, employees, `single calls, ${inFlight} employees in flight`, (client, writes) => singleCalls(client, writes, inFlight)));
      }
      sizes.push(cases);
    }
    printResults(sizes);
    printGoals(sizes);
  },
};

/** The tenant's client through the gateway. */
interface TenantClient {
  pool: Pool;
  token: string;
}

/** What the writes of one case came to. */
interface Outcome {
  wallMs: number;
  /** From the request sent until the first answer line (import only): the body spooled, the first line applied. */
  firstAnswerMs?: number;
  /** Answers by status; `lost` for writes that got no answer. */
  statuses: Map<string, number>;
  /** Import only: every line answered once, in input order. */
  inOrder?: boolean;
  firstProblem?: string;
  /** Availabilities written (their POST answered 201). */
  availabilities: number;
}

/** A case on a stack of its own: trucks first (not timed), then the writes, then the engine's catching up. */
async function onStack(servers: ReturnType<typeof testServers>, employees: number, name: string, write: (client: TenantClient, writes: Write[]) => Promise<Outcome>): Promise<CaseFigures> {
  const warnings = new Map<string, { count: number; first: string }>();
  const stack = await startStack({
    ...throwawayStackOptions(servers, 'bench_import'),
    // the single calls measure the write path, not the tenant's rate limit (the import's lines bypass it); one
    // token serves the longest baseline (an import renews its lines' tokens itself)
    gatewayVariables: { TENANT_REQUEST_RATE: '1000000', TOKEN_LIFETIME_SECONDS: '3600' },
    onLine(service, line) {
      const message = warningOf(line);
      if (message !== undefined) warnings.set(service, { count: (warnings.get(service)?.count ?? 0) + 1, first: warnings.get(service)?.first ?? message });
    },
  });
  const pool = new Pool(stack.gateway, { connections: 20, headersTimeout: 0, bodyTimeout: 0 });
  try {
    const tenant = await createThrowawayTenant(stack, 'bench-import');
    const client: TenantClient = { pool, token: await issueToken(pool, tenant) };
    await writeTrucks(client);
    const writes = Array.from({ length: employees }, (_, index) => writesOf(index)).flat();
    console.log(`\n${employees.toLocaleString('en-US')} employees, ${name}:`);
    const outcome = await write(client, writes);
    const converged = await untilMatched(client, outcome.availabilities);
    const figures: CaseFigures = {
      name,
      employees,
      writes: writes.length,
      ...outcome,
      converged,
      gatewayPeakMiB: (await residentMemory(stack.processIds().gateway!)).peakMiB,
      warnings,
    };
    console.log(`  ${(outcome.wallMs / 1000).toFixed(1)} s, ${rate(figures).toFixed(0)} writes/s, ${failed(figures)} not 2xx; ${describeConvergence(figures)}`);
    return figures;
  } finally {
    await pool.destroy();
    await stopThrowawayStack(stack, servers);
  }
}

/** The message of a log line at warn or above, with its error's. */
function warningOf(line: string): string | undefined {
  try {
    const { level, msg, err } = JSON.parse(line) as { level?: unknown; msg?: unknown; err?: { message?: unknown } };
    if (!['warn', 'error', 'fatal'].includes(String(level))) return undefined;
    return `${String(msg)}${err?.message === undefined ? '' : `: ${String(err.message)}`}`.slice(0, 300);
  } catch {
    return undefined;
  }
}

async function call(client: TenantClient, { method, path, body }: Write): Promise<number> {
  const answer = await client.pool.request({
    method,
    path: `${API_BASE}${path}`,
    headers: { ...bearer(client.token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await answer.body.dump();
  return answer.statusCode;
}

async function writeTrucks(client: TenantClient): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let truck = next++; truck < TRUCKS; truck = next++) {
        const status = await call(client, { method: 'PUT', path: `/transport-resource/t-${truck}`, body: { ...bodies.transportResource(`truck ${truck}`), ...startAt(truck) } });
        if (status !== 201) throw new Error(`PUT /transport-resource answered ${status}`);
      }
    }),
  );
}

const count = (tally: Map<string, number>, key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);

/** Every write as one line of one import; the answer read line by line as it streams. */
async function importAll(client: TenantClient, writes: readonly Write[]): Promise<Outcome> {
  const body = `${writes.map((write) => JSON.stringify(write)).join('\n')}\n`;
  const statuses = new Map<string, number>();
  let [answered, expected, availabilities] = [0, 1, 0];
  let inOrder = true;
  let firstAnswerMs: number | undefined;
  let firstProblem: string | undefined;
  const started = process.hrtime.bigint();
  const { statusCode, body: answer } = await client.pool.request({
    method: 'POST',
    path: `${API_BASE}/import`,
    headers: { ...bearer(client.token), 'content-type': 'application/x-ndjson' },
    body,
  });
  if (statusCode !== 200) throw new Error(`POST /import answered ${statusCode}: ${(await answer.text()).slice(0, 300)}`);
  let rest = '';
  for await (const chunk of answer) {
    firstAnswerMs ??= msSince(started);
    const lines = (rest + (chunk as Buffer).toString('utf8')).split('\n');
    rest = lines.pop()!;
    for (const text of lines.filter((line) => line !== '')) {
      const outcome = JSON.parse(text) as { line: number; status: number; problem?: unknown };
      answered += 1;
      if (outcome.line !== expected) inOrder = false;
      expected = outcome.line + 1;
      count(statuses, String(outcome.status));
      if (outcome.status >= 300) firstProblem ??= text.slice(0, 300);
      // the even lines are the availabilities
      else if (outcome.line % 2 === 0) availabilities += 1;
    }
  }
  const wallMs = msSince(started);
  if (rest.trim() !== '') firstProblem ??= `an unfinished last answer line: ${rest.slice(0, 200)}`;
  if (answered < writes.length) statuses.set('lost', writes.length - answered);
  if (answered > writes.length) statuses.set('extra', answered - writes.length);
  return { wallMs, ...(firstAnswerMs === undefined ? {} : { firstAnswerMs }), statuses, inOrder, ...(firstProblem === undefined ? {} : { firstProblem }), availabilities };
}

/** Every write as a call of its own, `inFlight` employees at once, each its PUT then its POST. */
async function singleCalls(client: TenantClient, writes: readonly Write[], inFlight: number): Promise<Outcome> {
  const statuses = new Map<string, number>();
  let availabilities = 0;
  let firstProblem: string | undefined;
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let pair = next++; pair * 2 < writes.length; pair = next++) {
        for (const write of writes.slice(pair * 2, pair * 2 + 2)) {
          const status = await call(client, write).catch((error: unknown) => {
            firstProblem ??= error instanceof Error ? error.message : String(error);
            return 0;
          });
          count(statuses, status === 0 ? 'no answer' : String(status));
          if (status >= 300) firstProblem ??= `${write.method} ${write.path} answered ${status}`;
          else if (write.method === 'POST' && status > 0) availabilities += 1;
        }
      }
    }),
  );
  return { wallMs: msSince(started), statuses, ...(firstProblem === undefined ? {} : { firstProblem }), availabilities };
}

/**
 * Counts the tenant's AvailableEmployees once a second (from one count's start to the next's) until
 * they are as many as the availabilities written; the time is from now until that count ended.
 */
async function untilMatched(client: TenantClient, expected: number): Promise<CaseFigures['converged']> {
  const started = process.hrtime.bigint();
  for (;;) {
    const countStarted = process.hrtime.bigint();
    let shown = 0;
    let cursor: string | undefined;
    do {
      const query = `limit=1000${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const { statusCode, body } = await client.pool.request({ method: 'GET', path: `${API_BASE}/available-employee?${query}`, headers: bearer(client.token) });
      if (statusCode !== 200) {
        await body.dump();
        break;
      }
      const page = (await body.json()) as { available_employees: unknown[]; cursors: { next?: string } };
      shown += page.available_employees.length;
      cursor = page.cursors.next;
    } while (cursor !== undefined);
    const countMs = msSince(countStarted);
    if (shown >= expected) return { afterMs: msSince(started), countMs, shown };
    if (msSince(started) > CONVERGE_TIMEOUT_MS) return { timedOutAfterMs: msSince(started), shown };
    await sleep(Math.max(0, COUNT_EVERY_MS - countMs));
  }
}

const rate = (figures: CaseFigures) => (figures.writes - failed(figures)) / (figures.wallMs / 1000);
const failed = (figures: CaseFigures) => [...figures.statuses].filter(([status]) => !/^2\d\d$/.test(status)).reduce((sum, [, n]) => sum + n, 0);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

function describeConvergence({ converged, availabilities }: CaseFigures): string {
  return 'afterMs' in converged
    ? `the engine showed all ${availabilities.toLocaleString('en-US')} AvailableEmployees ${seconds(converged.afterMs)} s after the last answer`
    : `the engine showed ${converged.shown.toLocaleString('en-US')} of ${availabilities.toLocaleString('en-US')} AvailableEmployees after ${seconds(converged.timedOutAfterMs)} s`;
}

function printResults(sizes: CaseFigures[][]): void {
  const rows = sizes.flatMap((cases) => {
    const baseline = cases.find(({ name }) => name.startsWith('single calls, 8'));
    return cases.map((figures) => {
      const { converged } = figures;
      return [
        figures.name,
        figures.employees.toLocaleString('en-US'),
        figures.writes.toLocaleString('en-US'),
        seconds(figures.wallMs),
        rate(figures).toFixed(1),
        baseline === undefined ? '' : `${(rate(figures) / rate(baseline)).toFixed(2)}×`,
        String(failed(figures)),
        figures.inOrder === undefined ? '' : figures.inOrder ? 'yes' : 'no',
        figures.firstAnswerMs === undefined ? '' : seconds(figures.firstAnswerMs),
        'afterMs' in converged ? `${seconds(converged.afterMs)} (a count ${seconds(converged.countMs)})` : `> ${seconds(converged.timedOutAfterMs)} (${converged.shown} shown)`,
        figures.gatewayPeakMiB.toFixed(0),
      ];
    });
  });
  printMarkdown(
    `Bulk load: an employee PUT and an availability POST per employee through the gateway, ${TRUCKS} trucks stored before; each case on a fresh stack`,
    [
      'case',
      'employees',
      'writes',
      'wall s',
      'writes/s',
      'writes/s × 8 in flight',
      'not 2xx',
      'answered once, in order',
      'first answer after s',
      'every AvailableEmployee shown after the last answer, s',
      'gateway peak RSS MiB',
    ],
    rows,
  );
  for (const figures of sizes.flat()) {
    const statuses = [...figures.statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
    if (failed(figures) > 0) console.log(`\n${figures.employees} employees, ${figures.name}: ${statuses}; the first: ${figures.firstProblem ?? '?'}`);
    for (const [service, { count: lines, first }] of figures.warnings) console.log(`\n${figures.employees} employees, ${figures.name}: ${service} logged ${lines} line(s) at warn or above; the first: ${first}`);
  }
}

function printGoals(sizes: CaseFigures[][]): void {
  console.log(`\nGoals of issue 29 (${GOAL_EMPLOYEES.toLocaleString('en-US')} employees and as many availabilities in ≤ ${GOAL_IMPORT_S} s, matching converged ≤ ${GOAL_CONVERGED_S} s after):`);
  for (const cases of sizes) {
    const figures = cases.find(({ name }) => name.startsWith('POST /import'));
    if (figures === undefined) continue;
    const projected = (GOAL_EMPLOYEES * 2) / rate(figures);
    const { converged } = figures;
    const convergedS = 'afterMs' in converged ? converged.afterMs / 1000 : Number.POSITIVE_INFINITY;
    console.log(
      `- at ${figures.employees.toLocaleString('en-US')}: ${rate(figures).toFixed(0)} lines/s, ` +
        (figures.employees === GOAL_EMPLOYEES ? `${seconds(figures.wallMs)} s` : `${projected.toFixed(0)} s for ${(GOAL_EMPLOYEES * 2).toLocaleString('en-US')} lines at that rate`) +
        ` (${(figures.employees === GOAL_EMPLOYEES ? figures.wallMs / 1000 : projected) <= GOAL_IMPORT_S ? 'met' : 'missed'}); converged ${Number.isFinite(convergedS) ? `${convergedS.toFixed(1)} s` : 'not'} after (${convergedS <= GOAL_CONVERGED_S ? 'met' : 'missed'})`,
    );
  }
}

