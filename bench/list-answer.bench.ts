// The memory of the largest unpaged answer: GET /employee/{id}/shift-schedule of one employee with 2,000
// and 20,000 schedules (the lists of availabilities and unavailabilities are answered the same way),
// through a listening employees service and a client that drops the body as it arrives, against the
// direct call the answer used to be: find() and the whole list serialized at once. Both in this process:
// the heap still live after a full GC at each one's fullest (the direct call holding list and text; the
// GET half read), over the same before it. Times include the GCs.
import { request } from 'undici';
import { startService } from '@rm/runtime';
import { bucketsOf, documentId, toJsonText, type Resource } from '@rm/store';
import type { ShiftScheduleFields } from '@rm/contracts';
import { employeesService } from '@rm/employees/service';
import { toShiftSchedule } from '@rm/employees/testing';
import type { Bench } from './lib/bench.ts';
import { employeeFields } from './lib/employee-fixture.ts';
import type { MemoryProbe } from './lib/memory.ts';
import { printMarkdown } from './lib/report.ts';
import { benchServiceEnv } from './lib/service-env.ts';

const BASE = '/resource-management/v1';
const TENANT = 'bench-lists';
const SIZES = [2_000, 20_000];
/** Schedules inserted per statement: stored as a write leaves them once published (seeding through the API takes minutes). */
const SEEDING_BATCH = 1_000;
const ROUNDS = 3;
const MIB = 1024 ** 2;

export const listAnswerBench: Bench = {
  name: 'list-answer',
  async run(context) {
    // the bench's schedules name no home base, so it is never called
    const env = await benchServiceEnv('bench_lists', { HOME_BASES_URL: 'http://127.0.0.1:9/resource-management/v1' });
    const service = await startService(employeesService, { env: env.variables });
    const origin = `http://127.0.0.1:${env.variables.PORT}`;
    const headers = await env.bearer(TENANT, { expiresInSeconds: 3600 });
    const { schedules } = service.collections;
    const rows: string[][] = [];
    try {
      for (const size of SIZES) {
        const employee = `e-${size}`;
        const put = await request(`${origin}${BASE}/employee/${employee}`, {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(employeeFields(size)),
        });
        if (put.statusCode >= 300) throw new Error(`PUT employee answered ${put.statusCode}: ${await put.body.text()}`);
        await put.body.dump();
        const scope = { tenant: TENANT, parent: employee };
        for (let first = 0; first < size; first += SEEDING_BATCH) {
          const keys = Array.from({ length: Math.min(SEEDING_BATCH, size - first) }, (_, offset) => `s-${String(first + offset).padStart(6, '0')}`);
          await schedules.collection.insertMany(keys.map((key, offset) => storedSchedule(employee, key, first + offset)));
        }

        for (let round = 1; round <= ROUNDS; round += 1) {
          const direct = await directCall(context.probe, () => schedules.find(scope));
          const answered = await answeredList(context.probe, `${origin}${BASE}/employee/${employee}/shift-schedule`, headers, direct.bytes);
          rows.push([
            `${size.toLocaleString('en-US')} schedules, round ${round}`,
            `${(answered.bytes / MIB).toFixed(1)} MiB`,
            `${(direct.liveBytes / MIB).toFixed(1)} MiB`,
            `${(answered.liveBytes / MIB).toFixed(1)} MiB`,
            `${(answered.liveBytes / direct.liveBytes).toFixed(2)}×`,
            `${direct.ms.toFixed(0)} ms`,
            `${answered.ms.toFixed(0)} ms`,
          ]);
        }
      }
      printMarkdown(
        "One employee's whole list of shift schedules: heap live (after a full GC) at its fullest, the direct call (find + one JSON.stringify) against GET answered item by item, half read",
        ['list', 'answer', 'direct call: live heap', 'GET: live heap', 'GET ÷ direct', 'direct call', 'GET'],
        rows,
      );
    } finally {
      await service.stop();
      await env.close();
    }
  },
};

/** The old answer: the list read whole, then serialized whole; live heap with both held, over the start's. */
async function directCall(memory: MemoryProbe, find: () => Promise<Resource<ShiftScheduleFields>[]>) {
  const started = performance.now();
  const before = memory.liveHeap();
  const found = await find();
  const text = JSON.stringify(found.map(toShiftSchedule));
  const liveBytes = memory.liveHeap() - before;
  return { bytes: Buffer.byteLength(text), liveBytes, ms: performance.now() - started };
}

/** GET through the listening service, the body dropped as it comes; live heap (server and client) when half of it has come. */
async function answeredList(memory: MemoryProbe, url: string, headers: Record<string, string>, expectedBytes: number) {
  const started = performance.now();
  const before = memory.liveHeap();
  const response = await request(url, { headers });
  if (response.statusCode !== 200) throw new Error(`GET answered ${response.statusCode}`);
  let bytes = 0;
  let liveBytes: number | undefined;
  for await (const chunk of response.body) {
    bytes += (chunk as Buffer).length;
    if (liveBytes === undefined && bytes >= expectedBytes / 2) liveBytes = memory.liveHeap() - before;
  }
  return { bytes, liveBytes: liveBytes ?? 0, ms: performance.now() - started };
}

/** A schedule of about 300 bytes as the API answers it: a name and one week off. */
function schedule(index: number) {
  return {
    name: `schedule ${index} ${'x'.repeat(150)}`,
    start: { start_date: '2026-01-05', start_week: 1 },
    templates: [{ index: 1, shifts: [] }],
  };
}

function storedSchedule(employee: string, key: string, index: number) {
  const at = new Date();
  return { _id: documentId({ tenant: TENANT, parent: employee, key }), tenant: TENANT, parent: employee, key, version: 1, body: toJsonText(schedule(index)), pages: bucketsOf(key), created_at: at, updated_at: at };
}
