// An integrator's first import, through the gateway of the whole stack as `npm start` runs it (every
// service a process of its own, on the run's FerretDB and nats-server): each employee PUT followed by one
// availability POST, 8 employees in flight, measured per step of 1,000 employees, so that the table shows
// how the write rate holds up as the data grows. Baseline: the first 2,000 employees.
//
// Then, with every availability stored and matched (200 trucks at the employees' 20 start places), one
// availability update at a time until its AvailableEmployee shows the new shift through the gateway:
// what a planner waits for. Baseline: the update's own answer.
//
// Last, each service's resident memory, now and at its peak, against its pod's limit: the services run
// with the pods' NODE_OPTIONS (deploy/k8s), so that their heaps are sized as deployed.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseMetricSamples, testServers } from '@rm/testkit';
import { apiClient, idFromLocation, type ApiClient } from '../reliability/lib/api.ts';
import { at, bodies } from '../reliability/lib/fixtures.ts';
import { startSuiteStack } from '../reliability/lib/suite-stack.ts';
import type { Bench } from './lib/bench.ts';
import { residentMemory } from './lib/process-memory.ts';
import { msSince, percentile, sortedAscending } from './lib/stats.ts';
import { POD_NODE_OPTIONS } from './lib/pod-node-options.ts';

const EMPLOYEES = Number(process.env.BENCH_LOAD_EMPLOYEES ?? 10_000);
const TRUCKS = 200;
const PLACES = 20;
/** An employee's or a truck's start place: one of PLACES. */
const startAt = (index: number) => ({ start_location: { name: `Depot ${index % PLACES}`, geo_point: { latitude: 52.09, longitude: 5.12 } } });
const READBACKS = Number(process.env.BENCH_LOAD_READBACKS ?? 200);
/** How often an AvailableEmployee is read while waiting for the new shift. */
const POLL_MS = 5;
const STEP = 1_000;
const IN_FLIGHT = 8;
/** Steps whose rate is the baseline: the first 2,000 employees. */
const BASELINE_STEPS = 2;
/** The pods' memory limits (deploy/k8s/base): 384 MiB, the matching engine's 1 GiB. */
const POD_LIMIT_MIB: Record<string, number> = { matching: 1024 };
const DEFAULT_POD_LIMIT_MIB = 384;

export const loadBench: Bench = {
  name: 'load',
  async run() {
    const suite = await startSuiteStack(testServers(), { nodeOptions: POD_NODE_OPTIONS });
    try {
      const api = apiClient(suite, await suite.newTenant('load'));
      for (let truck = 0; truck < TRUCKS; truck++) {
        await api.call('PUT', `/transport-resource/t-${truck}`, { ...bodies.transportResource(`truck ${truck}`), ...startAt(truck) });
      }
      const availabilities: string[] = [];
      const pair = async (index: number) => {
        const id = `e-${index}`;
        const put = await api.call('PUT', `/employee/${id}`, { ...bodies.employee(), ...startAt(index) });
        // a fortnight of shifts: each employee's availability on another day
        const post = await api.call('POST', `/employee/${id}/availability`, bodies.availability((index % 14) * 24 + 6));
        if (post.status < 300) availabilities[index] = idFromLocation(post);
        return put.status < 300 && post.status < 300 ? undefined : `PUT ${put.status} ${put.body.slice(0, 80)}, POST ${post.status} ${post.body.slice(0, 80)}`;
      };
      const rates: number[] = [];
      console.log(`\nEmployee PUT + availability POST through the gateway, ${IN_FLIGHT} employees in flight, ${EMPLOYEES.toLocaleString('en-US')} employees:\n`);
      console.log('| employees already stored | writes/s | vs first 2,000 | pair p50 ms | pair p99 ms | failed |');
      console.log('|---|---:|---:|---:|---:|---:|');
      for (let from = 0; from < EMPLOYEES; from += STEP) {
        const latencies: number[] = [];
        const failures: string[] = [];
        let next = from;
        const started = process.hrtime.bigint();
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            for (let index = next++; index < from + STEP; index = next++) {
              const start = process.hrtime.bigint();
              const failure = await pair(index);
              if (failure === undefined) latencies.push(msSince(start));
              else failures.push(failure);
            }
          }),
        );
        const rate = (2 * latencies.length) / (msSince(started) / 1000);
        rates.push(rate);
        const baseline = rates.slice(0, BASELINE_STEPS).reduce((sum, each) => sum + each, 0) / Math.min(rates.length, BASELINE_STEPS);
        const sorted = sortedAscending(latencies);
        console.log(
          `| ${from.toLocaleString('en-US')} | ${rate.toFixed(1)} | ${(rate / baseline).toFixed(2)}× | ${percentile(sorted, 50).toFixed(0)} | ${percentile(sorted, 99).toFixed(0)} | ${failures.length} |`,
        );
        if (failures.length > 0) console.log(`\nfirst failure: ${failures[0]}\n`);
      }
      await readBack(api, availabilities);
      await printMemory(suite.stack.processIds(), suite.stack.origins);
    } finally {
      await suite.stop();
    }
  },
};

/** Updates availabilities one at a time, each until its AvailableEmployee shows the new shift; prints the table. */
async function readBack(api: ApiClient, availabilities: readonly string[]): Promise<void> {
  const last = availabilities.length - 1;
  // the import has reached the engine once the last availability's snapshot is there
  while ((await api.call('GET', `/available-employee/${availabilities[last]}`)).status !== 200) await sleep(100);
  const updates: number[] = [];
  const readable: number[] = [];
  for (let round = 0; round < READBACKS; round++) {
    const index = (round * 7919) % availabilities.length;
    const startHour = (index % 14) * 24 + 7 + (round % 3);
    const start = process.hrtime.bigint();
    const put = await api.call('PUT', `/employee/e-${index}/availability/${availabilities[index]}`, bodies.availability(startHour));
    if (put.status !== 200) throw new Error(`PUT availability: ${put.status} ${put.body.slice(0, 200)}`);
    updates.push(msSince(start));
    for (;;) {
      const got = await api.call('GET', `/available-employee/${availabilities[index]}`);
      if (got.status === 200 && Date.parse((JSON.parse(got.body) as { shift: { start: string } }).shift.start) === Date.parse(at(startHour))) break;
      await sleep(POLL_MS);
    }
    readable.push(msSince(start));
  }
  const [sortedUpdates, sortedReadable] = [sortedAscending(updates), sortedAscending(readable)];
  console.log(`\nAn availability update, one at a time (${READBACKS}), with ${availabilities.length.toLocaleString('en-US')} availabilities and ${TRUCKS} trucks:\n`);
  console.log('| measure | p50 ms | p99 ms |\n|---|---:|---:|');
  console.log(`| PUT answered (baseline) | ${percentile(sortedUpdates, 50).toFixed(0)} | ${percentile(sortedUpdates, 99).toFixed(0)} |`);
  console.log(`| its AvailableEmployee readable with the new shift (reads every ${POLL_MS} ms) | ${percentile(sortedReadable, 50).toFixed(0)} | ${percentile(sortedReadable, 99).toFixed(0)} |`);
}

/** Each service's resident memory against its pod's limit, and its JavaScript heap as its /metrics tells (prom-client's defaults). */
async function printMemory(processIds: Record<string, number>, origins: Record<string, string>): Promise<void> {
  console.log(`\nResident memory of each service after the import and the updates (NODE_OPTIONS=${POD_NODE_OPTIONS}, as in the pods):\n`);
  console.log('| service | resident now MiB | resident peak MiB | heap used / total MiB | pod limit MiB | peak ÷ limit |\n|---|---:|---:|---:|---:|---:|');
  for (const [service, pid] of Object.entries(processIds)) {
    const { nowMiB, peakMiB } = await residentMemory(pid);
    const metrics = parseMetricSamples(await (await fetch(`${origins[service]}/metrics`)).text());
    const mib = (name: string) => ((metrics.value(name) ?? Number.NaN) / 1024 ** 2).toFixed(0);
    const limit = POD_LIMIT_MIB[service] ?? DEFAULT_POD_LIMIT_MIB;
    console.log(
      `| ${service} | ${nowMiB.toFixed(0)} | ${peakMiB.toFixed(0)} | ${mib('nodejs_heap_size_used_bytes')} / ${mib('nodejs_heap_size_total_bytes')} | ${limit} | ${(peakMiB / limit).toFixed(2)} |`,
    );
  }
}
