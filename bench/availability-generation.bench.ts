// Availabilities from shift schedules (issue 30): a tenant's generation, POST /availability-generation page by
// page, against the bulk load of the same availabilities (POST /import of their POST lines, the issue's
// yardstick), each on a stack of its own as `npm start` runs it (scripts/stack.ts). For each size
// (BENCH_GENERATION_EMPLOYEES, default 400,2000: the issue's goal is a week for 2,000 in 30 s) that many
// employees with a weekly schedule of five shifts, over BENCH_GENERATION_WEEKS weeks (default 1); reported:
// wall time and availabilities per second of each way, and their ratio.
import { Pool } from 'undici';
import { testServers } from '@rm/testkit';
import { bodies } from '../reliability/lib/fixtures.ts';
import { createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions } from '../scripts/stack.ts';
import type { Bench } from './lib/bench.ts';
import { API_BASE, bearer } from './lib/gateway-calls.ts';
import { issueToken } from './lib/gateway-token.ts';
import { printMarkdown } from './lib/report.ts';
import { msSince } from './lib/stats.ts';

const SIZES = (process.env.BENCH_GENERATION_EMPLOYEES ?? '400,2000').split(',').map(Number);
const WEEKS = Number(process.env.BENCH_GENERATION_WEEKS ?? '1');
const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const;
const FROM = '2030-01-07T00:00:00Z';
const UNTIL = new Date(Date.parse(FROM) + WEEKS * 7 * 24 * 3_600_000).toISOString();
const SCHEDULE = {
  start: { start_date: '2030-01-07', start_week: 1 },
  templates: [{ index: 1, shifts: WEEKDAYS.map((day) => ({ start: { earliest: { day, time: '06:00' } }, duration: { at_most: 'PT8H' } })) }],
};

/** The availabilities the schedule implies in the weeks, as generation writes them. */
function availabilityLines(employee: string): string[] {
  const lines: string[] = [];
  for (let week = 0; week < WEEKS; week += 1) {
    for (let day = 0; day < WEEKDAYS.length; day += 1) {
      const start = new Date(Date.parse(FROM) + ((week * 7 + day) * 24 + 6) * 3_600_000).toISOString().replace('.000Z', 'Z');
      lines.push(JSON.stringify({ method: 'POST', path: `/employee/${employee}/availability`, body: { earliest_start: start, max_duration: 'PT8H' } }));
    }
  }
  return lines;
}

interface Client {
  pool: Pool;
  token: string;
}

async function call(client: Client, method: 'PUT' | 'POST', path: string, body: unknown): Promise<unknown> {
  const answer = await client.pool.request({ method, path: `${API_BASE}${path}`, headers: { ...bearer(client.token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await answer.body.text();
  if (answer.statusCode >= 300) throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 300)}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** The employees (and their schedules, for generation), 8 at a time; not timed. */
async function seed(client: Client, employees: readonly string[], withSchedules: boolean): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let index = next++; index < employees.length; index = next++) {
        await call(client, 'PUT', `/employee/${employees[index]}`, bodies.employee());
        if (withSchedules) await call(client, 'POST', `/employee/${employees[index]}/shift-schedule`, SCHEDULE);
      }
    }),
  );
}

/** Generation, page after page; returns how many availabilities it created. */
async function generate(client: Client): Promise<number> {
  let created = 0;
  let after: string | undefined;
  do {
    const page = (await call(client, 'POST', '/availability-generation', { from: FROM, until: UNTIL, ...(after === undefined ? {} : { after }) })) as {
      employees: { created: unknown[] }[];
      next_after?: string;
    };
    created += page.employees.reduce((sum, each) => sum + each.created.length, 0);
    after = page.next_after;
  } while (after !== undefined);
  return created;
}

/** The same availabilities as one import; returns how many lines answered 201. */
async function importAll(client: Client, employees: readonly string[]): Promise<number> {
  const answer = await client.pool.request({
    method: 'POST',
    path: `${API_BASE}/import`,
    headers: { ...bearer(client.token), 'content-type': 'application/x-ndjson' },
    body: `${employees.flatMap(availabilityLines).join('\n')}\n`,
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`POST /import answered ${answer.statusCode}: ${text.slice(0, 300)}`);
  return text.split('\n').filter((line) => line.includes('"status":201')).length;
}

/** One way on a stack of its own: its wall time and what it wrote. */
async function onStack(employees: number, way: 'generation' | 'import'): Promise<{ wallMs: number; written: number }> {
  const servers = testServers();
  // the tenant's rate counts single calls and import lines alike; raised, so that the write path is measured
  const stack = await startStack({ ...throwawayStackOptions(servers, 'bench_generation'), gatewayVariables: { TENANT_REQUEST_RATE: '1000000', TOKEN_LIFETIME_SECONDS: '3600' } });
  const pool = new Pool(stack.gateway, { connections: 16, headersTimeout: 0, bodyTimeout: 0 });
  try {
    const client = { pool, token: await issueToken(pool, await createThrowawayTenant(stack, 'bench-generation')) };
    const ids = Array.from({ length: employees }, (_, index) => `e-${String(index).padStart(5, '0')}`);
    await seed(client, ids, way === 'generation');
    const started = process.hrtime.bigint();
    const written = way === 'generation' ? await generate(client) : await importAll(client, ids);
    return { wallMs: msSince(started), written };
  } finally {
    await pool.destroy();
    await stopThrowawayStack(stack, servers);
  }
}

export const availabilityGenerationBench: Bench = {
  name: 'availability-generation',
  async run() {
    const rows: string[][] = [];
    for (const employees of SIZES) {
      const generation = await onStack(employees, 'generation');
      const imported = await onStack(employees, 'import');
      const rate = ({ wallMs, written }: { wallMs: number; written: number }) => written / (wallMs / 1000);
      for (const [name, figures] of [['POST /availability-generation, page by page', generation], ['POST /import of the same availabilities (baseline)', imported]] as const) {
        rows.push([name, employees.toLocaleString('en-US'), figures.written.toLocaleString('en-US'), (figures.wallMs / 1000).toFixed(1), rate(figures).toFixed(1)]);
      }
      rows.push(['generation ÷ import', '', '', '', `${(rate(generation) / rate(imported)).toFixed(2)}×`]);
      console.log(`${employees} employees: generation ${rate(generation).toFixed(1)}/s, import ${rate(imported).toFixed(1)}/s`);
    }
    printMarkdown('Availabilities from schedules, against the bulk load', ['way', 'employees', 'availabilities written', 'wall s', 'availabilities/s'], rows);
  },
};
