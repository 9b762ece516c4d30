// Change feed (issue 29): GET /changes on the whole stack as `npm start` runs it (scripts/stack.ts: every
// service a process of its own under the pods' heap limit, on the run's FerretDB and nats-server), with
// 0, 100 and 1,000 other streams open, spread over ten tenants (BENCH_CHANGE_FEED_TENANTS) and held in a
// worker thread:
// - a write's change on an open stream: PUT /employee/{id} through the gateway, one at a time, until its
//   event reaches the bench's stream of the writing tenant; baseline: the same event at a plain ordered
//   consumer of the employees stream (the broker alone), and the feed's lag behind it, event by event;
// - a plain API call, GET /employee/{id}, one and 16 in flight, against the same with no stream open;
// - the gateway's resident memory, and its live heap after a full GC (through its inspector), before and
//   after opening the streams: what an open stream costs, and whether closing them gives it back; how
//   long a stream takes to open, one at a time and many at once;
// - that every stream of the writing tenant shows each write once and in order, and the others none.
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { findFreePort, testServers } from '@rm/testkit';
import { createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions, type Stack, type ThrowawayTenant } from '../scripts/stack.ts';
import { createArrivals } from './lib/arrivals.ts';
import { issueToken } from './lib/gateway-token.ts';
import type { Bench, BenchContext } from './lib/bench.ts';
import { followEmployeeEvents, type EmployeeEventFollower } from './lib/employee-events.ts';
import { API_BASE as BASE, bearer, putEmployee } from './lib/gateway-calls.ts';
import { liveHeapOf } from './lib/inspected-heap.ts';
import { residentMemory } from './lib/process-memory.ts';
import { printGrowthTable, printMarkdown, type ReportRow } from './lib/report.ts';
import { measureSeries, reportProgress, warmUp, type SeriesResult } from './lib/series.ts';
import { eventBlockReader, startSseStreams, type OpenedStreams, type StreamReceipt } from './lib/sse-streams.ts';
import { msSince, nsToMs, percentile, sortedAscending } from './lib/stats.ts';
import { POD_NODE_OPTIONS } from './lib/pod-node-options.ts';

/** Streams open besides the measuring one, at each size of the run. */
const SIZES = (process.env.BENCH_CHANGE_FEED_SIZES ?? '0,100,1000').split(',').map(Number);
/** Writes per latency series, one at a time, each waiting for its event. */
const WRITES = Number(process.env.BENCH_CHANGE_FEED_WRITES ?? 200);
const WARM_UP_WRITES = 20;
const READS = [
  { concurrency: 1, ops: 1_000 },
  { concurrency: 16, ops: 2_000 },
] as const;
/** The streams of each size are spread over this many tenants; the first is the writing one (1: all of them in it). */
const TENANTS = Number(process.env.BENCH_CHANGE_FEED_TENANTS ?? 10);
/** At each size, the first streams open one at a time, the rest this many at once. */
const SERIAL_OPENS = 20;
const OPENS_IN_FLIGHT = 32;
/** An event not on the stream by then is counted as lost. */
const ARRIVAL_TIMEOUT_MS = 10_000;
/** After opening or closing streams, before measuring: the gateway has seen every open and close. */
const SETTLE_MS = 3_000;
/** Issue 29's goals. */
const GOAL_P99_MS = 1_000;
const GOAL_RSS_MIB = 200;
const GOAL_LATENCY_RATIO = 1.2;

export const changeFeedBench: Bench = {
  name: 'change-feed',
  async run(context) {
    const servers = testServers();
    const largest = Math.max(...SIZES);
    const inspectorPort = await findFreePort();
    const gatewayLines: string[] = [];
    const exits: string[] = [];
    const stack = await startStack({
      ...throwawayStackOptions(servers, 'bench_feed'),
      nodeOptions: POD_NODE_OPTIONS,
      gatewayVariables: {
        // each tenant holds its share of the largest size, the writing one the measuring stream besides, and
        // no more: a stream whose close the gateway missed shows as a 429 at the next size
        CHANGE_FEEDS_PER_TENANT: String(Math.ceil(largest / TENANTS) + 1),
        TENANT_REQUEST_RATE: '1000000',
        TOKEN_LIFETIME_SECONDS: '3600',
        // the inspector on loopback, for a full GC before the heap is read (lib/inspected-heap.ts)
        NODE_OPTIONS: `${POD_NODE_OPTIONS} --inspect=127.0.0.1:${inspectorPort}`,
      },
      onLine: (service, line) => void (service === 'gateway' && isWarning(line) && gatewayLines.push(line)),
      onExit: (service, reason) => void exits.push(`${service} exited (${reason})`),
    });
    const toGateway = new Pool(stack.gateway, { connections: 32 });
    const others = startSseStreams(stack.gateway);
    let measuring: MeasuringFeed | undefined;
    let broker: EmployeeEventFollower | undefined;
    try {
      const tenants: (ThrowawayTenant & { token: string })[] = [];
      for (const tenant of await Promise.all(Array.from({ length: TENANTS }, () => createThrowawayTenant(stack, 'bench-feed')))) {
        tenants.push({ ...tenant, token: await issueToken(toGateway, tenant) });
      }
      const writer = tenants[0]!;
      measuring = await openMeasuringFeed(toGateway, writer.token);
      broker = await followEmployeeEvents(context, writer.tenant, ARRIVAL_TIMEOUT_MS);
      const target: WriteTarget = { toGateway, token: writer.token, measuring, broker };
      await putEmployee(toGateway, writer.token, 'read-1', 0);
      await warmUp({ ops: 2_000, concurrency: 8, operation: () => readEmployee(toGateway, writer.token) });
      await measureWrites(target, 'warm', WARM_UP_WRITES);
      // the first size's before, like every other, follows a full GC
      await gatewayMemory(stack, inspectorPort);

      const latencyBySize: ReportRow[][] = [];
      const sizes: SizeFigures[] = [];
      for (const size of SIZES) {
        const requests = Array.from({ length: size }, (_, index) => {
          const { tenant, token } = tenants[index % TENANTS]!;
          return { path: `${BASE}/changes`, headers: bearer(token), label: tenant };
        });
        const before = await gatewayMemory(stack, inspectorPort);
        const opened =
          size === 0
            ? undefined
            : { oneAtATime: await others.open(requests.slice(0, SERIAL_OPENS), 1), together: await others.open(requests.slice(SERIAL_OPENS), OPENS_IN_FLIGHT) };
        await sleep(SETTLE_MS);
        const open = await gatewayMemory(stack, inspectorPort);
        const rows: ReportRow[] = [];
        for (const { concurrency, ops } of READS) {
          const label = `GET /employee/{id}, ${concurrency} in flight`;
          rows.push({ result: await measureSeries(context.probe, { label, ops, concurrency, operation: () => readEmployee(toGateway, writer.token) }) });
        }
        // what the other streams received so far (their opening ids, heartbeats) is left out of the check
        await others.take();
        const writes = await measureWrites(target, String(size), WRITES);
        rows.push(...writes.rows);
        latencyBySize.push(rows);
        // the writing tenant's other streams had each event as the measuring one did, give or take
        await sleep(1_000);
        const check = checkReceipts(await others.take(), writer.tenant, writes.written, measuring.createdSince(writes.written[0]));
        sizes.push({ size, opened, before, open, after: await gatewayMemory(stack, inspectorPort), check });
        await others.closeAll();
        await sleep(SETTLE_MS);
      }

      printGrowthTable(
        `Change feed: latency with N other streams open (the columns; over ${TENANTS} tenant${TENANTS === 1 ? '' : 's'}, the first writing), p50 / p99 ms (p50 × baseline), ${WRITES} writes one at a time`,
        SIZES,
        latencyBySize,
      );
      const closed = await afterClosing(context, { stack, inspectorPort }, toGateway, writer.token);
      printMemory(sizes, closed, largest);
      printChecks(sizes);
      printGoals(sizes, latencyBySize, largest);
      console.log(`\nmeasuring stream ended by the server: ${measuring.ended() ? 'yes' : 'no'}`);
      if (exits.length > 0) console.log(`\n${exits.join('\n')}`);
      console.log(`\ngateway log lines at warn or above: ${gatewayLines.length}${gatewayLines.length > 0 ? `; the first:\n${gatewayLines.slice(0, 3).join('\n')}` : ''}`);
    } finally {
      measuring?.close();
      await broker?.stop();
      await others.stop();
      await toGateway.destroy();
      await stopThrowawayStack(stack, servers);
    }
  },
};

interface GatewayMemory {
  /** As the process holds it, garbage included. */
  rssMiB: number;
  peakMiB: number;
  /** After a full GC. */
  rssAfterGcMiB: number;
  liveHeapMiB: number;
  heapTotalMiB: number;
}

interface ReceiptCheck {
  /** The writing tenant's other streams, and those of them that showed every write once, in order. */
  writerStreams: number;
  exact: number;
  /** Over the writing tenant's streams: writes not shown, and shown more than once or out of order. */
  missing: number;
  extra: number;
  /** Events with data on the other tenants' streams (they wrote nothing). */
  otherTenants: number;
  /** Streams the server ended before the bench closed them. */
  ended: number;
  /** The measuring stream showed every write once, in order. */
  measuringExact: boolean;
}

interface SizeFigures {
  size: number;
  opened: { oneAtATime: OpenedStreams; together: OpenedStreams } | undefined;
  /** Before opening the streams, once they are open, and after the reads and writes. */
  before: GatewayMemory;
  open: GatewayMemory;
  after: GatewayMemory;
  check: ReceiptCheck;
}

/** A log line of the gateway at warn or above (it logs at warn; its stderr also has the inspector's own lines). */
function isWarning(line: string): boolean {
  try {
    return ['warn', 'error', 'fatal'].includes(String((JSON.parse(line) as { level?: unknown }).level));
  } catch {
    return false;
  }
}

async function readEmployee(pool: Pool, token: string): Promise<void> {
  const { statusCode, body } = await pool.request({ method: 'GET', path: `${BASE}/employee/read-1`, headers: bearer(token) });
  await body.dump();
  if (statusCode !== 200) throw new Error(`GET answered ${statusCode}`);
}

type Arrivals = ReturnType<typeof createArrivals>;

/** The bench's own stream of the writing tenant, read in its event loop: when each employee.created arrived. */
interface MeasuringFeed {
  arrivals: Arrivals;
  /** The entity ids of the employee.created events shown from `first` on, in the order shown. */
  createdSince(first: string | undefined): string[];
  ended(): boolean;
  close(): void;
}

async function openMeasuringFeed(pool: Pool, token: string): Promise<MeasuringFeed> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const abort = new AbortController();
    const { statusCode, body } = await pool.request({ method: 'GET', path: `${BASE}/changes`, headers: bearer(token), signal: abort.signal });
    if (statusCode === 200) {
      const arrivals = createArrivals(ARRIVAL_TIMEOUT_MS);
      const created: string[] = [];
      let ended = false;
      body.setEncoding('utf8');
      body.on(
        'data',
        eventBlockReader(({ event, data }) => {
          if (event !== 'employee.created' || data === undefined) return;
          const { entity_id: key } = JSON.parse(data) as { entity_id: string };
          arrivals.record(key);
          created.push(key);
        }),
      );
      const end = () => void (ended = !abort.signal.aborted);
      body.on('end', end);
      body.on('error', end);
      return {
        arrivals,
        createdSince: (first) => (first === undefined ? [] : created.slice(Math.max(0, created.indexOf(first)))),
        ended: () => ended,
        close: () => abort.abort(),
      };
    }
    await body.dump();
    // 503 until the gateway reads every feed stream, which the services declare as they start
    if (statusCode !== 503 || Date.now() > deadline) throw new Error(`GET /changes answered ${statusCode}`);
    await sleep(250);
  }
}

interface WriteTarget {
  toGateway: Pool;
  token: string;
  measuring: MeasuringFeed;
  broker: EmployeeEventFollower;
}

/**
 * PUTs `count` new employees one at a time, each after the last one's event reached both the measuring
 * stream and the broker's consumer; times from the PUT sent. Returns the rows (the answer, the broker's
 * baseline, the feed against it, the feed's lag behind the broker per event) and the keys written.
 */
async function measureWrites({ toGateway, token, measuring, broker }: WriteTarget, tag: string, count: number): Promise<{ rows: ReportRow[]; written: string[] }> {
  const series = (label: string): SeriesResult => ({ label, ops: count, concurrency: 1, totalMs: 0, latenciesMs: [], errors: new Map() });
  const answered = series('PUT /employee/{id} answered');
  const atBroker = series('PUT sent → event at a NATS ordered consumer');
  const onFeed = series('PUT sent → event on the open /changes stream');
  const lag = series('the same event: on /changes after at NATS');
  const fail = (result: SeriesResult, message: string) => result.errors.set(message, (result.errors.get(message) ?? 0) + 1);
  const written: string[] = [];
  const start = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) {
    const key = `feed-${tag}-${index}`;
    const sent = process.hrtime.bigint();
    try {
      await putEmployee(toGateway, token, key, index);
    } catch (error) {
      for (const result of [answered, atBroker, onFeed, lag]) fail(result, error instanceof Error ? error.message : String(error));
      continue;
    }
    answered.latenciesMs.push(msSince(sent));
    written.push(key);
    const [fromBroker, fromFeed] = await Promise.allSettled([broker.arrivals.wait(key), measuring.arrivals.wait(key)]);
    if (fromBroker.status === 'fulfilled') atBroker.latenciesMs.push(nsToMs(fromBroker.value - sent));
    else fail(atBroker, `no event at NATS within ${ARRIVAL_TIMEOUT_MS} ms`);
    if (fromFeed.status === 'fulfilled') onFeed.latenciesMs.push(nsToMs(fromFeed.value - sent));
    else fail(onFeed, `no event on the stream within ${ARRIVAL_TIMEOUT_MS} ms`);
    // negative when the bench's consumer had it after the gateway's stream had shown it
    if (fromBroker.status === 'fulfilled' && fromFeed.status === 'fulfilled') lag.latenciesMs.push(nsToMs(fromFeed.value - fromBroker.value));
    else fail(lag, 'an event missing');
  }
  const totalMs = msSince(start);
  for (const result of [answered, atBroker, onFeed, lag]) {
    result.totalMs = totalMs;
    reportProgress(result);
  }
  return { rows: [{ result: answered }, { result: atBroker }, { result: onFeed, baseline: atBroker }, { result: lag }], written };
}

/** Whether each stream of the writing tenant showed the writes once and in order, and the others nothing. */
function checkReceipts(receipts: StreamReceipt[], writer: string, written: string[], measured: string[]): ReceiptCheck {
  const inOrder = (shown: string[]) => shown.length === written.length && shown.every((key, index) => key === written[index]);
  const check: ReceiptCheck = { writerStreams: 0, exact: 0, missing: 0, extra: 0, otherTenants: 0, ended: 0, measuringExact: inOrder(measured) };
  for (const receipt of receipts) {
    if (receipt.ended) check.ended += 1;
    if (receipt.label !== writer) {
      check.otherTenants += receipt.events.length;
      continue;
    }
    check.writerStreams += 1;
    const shown = receipt.events.filter(({ event }) => event === 'employee.created').map(({ data }) => (JSON.parse(data) as { entity_id: string }).entity_id);
    if (inOrder(shown)) check.exact += 1;
    const seen = new Set(shown);
    const missing = written.filter((key) => !seen.has(key)).length;
    check.missing += missing;
    check.extra += shown.length - (written.length - missing);
  }
  return check;
}

/** The gateway's resident memory (the kernel's) as it is, then it and the live heap after a full GC. */
async function gatewayMemory(stack: Stack, inspectorPort: number): Promise<GatewayMemory> {
  const pid = stack.processIds().gateway!;
  const { nowMiB, peakMiB } = await residentMemory(pid);
  const { usedBytes, totalBytes } = await liveHeapOf(inspectorPort);
  const { nowMiB: rssAfterGcMiB } = await residentMemory(pid);
  return { rssMiB: nowMiB, peakMiB, rssAfterGcMiB, liveHeapMiB: usedBytes / 1024 ** 2, heapTotalMiB: totalBytes / 1024 ** 2 };
}

/** Once every other stream is closed: the gateway's memory, and the reads again. */
async function afterClosing(
  context: BenchContext,
  { stack, inspectorPort }: { stack: Stack; inspectorPort: number },
  toGateway: Pool,
  token: string,
): Promise<{ memory: GatewayMemory; reads: SeriesResult }> {
  const memory = await gatewayMemory(stack, inspectorPort);
  const { concurrency, ops } = READS[0];
  const reads = await measureSeries(context.probe, { label: `GET /employee/{id}, ${concurrency} in flight, after closing`, ops, concurrency, operation: () => readEmployee(toGateway, token) });
  return { memory, reads };
}

function p(result: SeriesResult, percent: number): number {
  return percentile(sortedAscending(result.latenciesMs), percent);
}

const one = (value: number) => value.toFixed(1);

function printMemory(sizes: SizeFigures[], closed: { memory: GatewayMemory; reads: SeriesResult }, largest: number): void {
  const mib = (before: number, after: number) => `${one(before)} → ${one(after)}`;
  const perStream = (before: number, after: number, size: number) => (size === 0 ? '' : one(((after - before) * 1024) / size));
  const latencies = (opened: OpenedStreams | undefined) =>
    opened === undefined || opened.openMs.length === 0 ? '–' : `${one(p({ latenciesMs: opened.openMs } as SeriesResult, 50))} / ${one(p({ latenciesMs: opened.openMs } as SeriesResult, 99))}`;
  const failed = (opened: OpenedStreams | undefined) => [...(opened?.failures.values() ?? [])].reduce((sum, count) => sum + count, 0);
  const header = [
    'other streams open',
    'opened one at a time p50 / p99 ms',
    `opened ${OPENS_IN_FLIGHT} at once p50 / p99 ms`,
    'not opened',
    'RSS open, MiB',
    'after a full GC: RSS before → open, MiB',
    'RSS per stream KiB',
    'live heap before → open, MiB (heap total)',
    'live heap per stream KiB',
    'after the reads and writes: RSS / peak MiB',
  ];
  const rows = sizes.map(({ size, opened, before, open, after }) => [
    size.toLocaleString('en-US'),
    latencies(opened?.oneAtATime),
    latencies(opened?.together),
    String(failed(opened?.oneAtATime) + failed(opened?.together)),
    one(open.rssMiB),
    mib(before.rssAfterGcMiB, open.rssAfterGcMiB),
    perStream(before.rssAfterGcMiB, open.rssAfterGcMiB, size),
    `${mib(before.liveHeapMiB, open.liveHeapMiB)} (${one(open.heapTotalMiB)})`,
    perStream(before.liveHeapMiB, open.liveHeapMiB, size),
    `${one(after.rssMiB)} / ${one(after.peakMiB)}`,
  ]);
  const first = sizes[0]?.before;
  if (first !== undefined) {
    rows.push([
      `none, after closing the ${largest.toLocaleString('en-US')}`,
      '',
      '',
      '',
      one(closed.memory.rssMiB),
      mib(first.rssAfterGcMiB, closed.memory.rssAfterGcMiB),
      '',
      `${mib(first.liveHeapMiB, closed.memory.liveHeapMiB)} (${one(closed.memory.heapTotalMiB)})`,
      '',
      `– / ${one(closed.memory.peakMiB)}`,
    ]);
  }
  printMarkdown(
    `The gateway (NODE_OPTIONS=${POD_NODE_OPTIONS}, as in its pod): before opening the other streams, and ${SETTLE_MS / 1000} s after (the last row against the first size's before)`,
    header,
    rows,
  );
  for (const { size, opened } of sizes) {
    for (const [message, count] of [...(opened?.oneAtATime.failures ?? []), ...(opened?.together.failures ?? [])]) console.log(`\n${size} streams: ${count} not opened, ${message}`);
  }
  const reads = closed.reads;
  console.log(`\nafter closing them all, ${reads.label}: p50 ${p(reads, 50).toFixed(2)} ms, p99 ${p(reads, 99).toFixed(2)} ms`);
}

function printChecks(sizes: SizeFigures[]): void {
  const header = ['other streams open', "writing tenant's other streams", 'showed every write once, in order', 'writes missing / extra', "other tenants' events", 'ended by the server', 'measuring stream in order'];
  printMarkdown(
    `Events on the streams over the ${WRITES} writes of each size (only the writing tenant wrote)`,
    header,
    sizes.map(({ size, check }) => [
      size.toLocaleString('en-US'),
      String(check.writerStreams),
      String(check.exact),
      `${check.missing} / ${check.extra}`,
      String(check.otherTenants),
      String(check.ended),
      check.measuringExact ? 'yes' : 'no',
    ]),
  );
}

function printGoals(sizes: SizeFigures[], latencyBySize: ReportRow[][], largest: number): void {
  const rowOf = (rows: ReportRow[] | undefined, label: string) => rows?.find(({ result }) => result.label.startsWith(label))?.result;
  const first = latencyBySize[0];
  const last = latencyBySize.at(-1);
  console.log('\nGoals of issue 29:');
  for (const [index, rows] of latencyBySize.entries()) {
    const feed = rowOf(rows, 'PUT sent → event on');
    if (feed === undefined) continue;
    const p99 = p(feed, 99);
    console.log(`- write → stream p99 with ${SIZES[index]} other streams: ${p99.toFixed(0)} ms (goal ≤ ${GOAL_P99_MS} ms: ${p99 <= GOAL_P99_MS ? 'met' : 'missed'})`);
  }
  const top = sizes.find(({ size }) => size === largest);
  if (top !== undefined) {
    const rss = Math.max(top.open.rssMiB, top.after.rssMiB);
    const none = sizes[0]!;
    console.log(
      `- gateway RSS with ${largest} streams: ${rss.toFixed(0)} MiB at most (goal ≤ ${GOAL_RSS_MIB} MiB: ${rss <= GOAL_RSS_MIB ? 'met' : 'missed'}); ` +
        `with ${none.size} after the same reads and writes ${none.after.rssMiB.toFixed(0)} MiB; the streams' own share after a full GC ${(top.open.rssAfterGcMiB - top.before.rssAfterGcMiB).toFixed(0)} MiB of RSS, ${(top.open.liveHeapMiB - top.before.liveHeapMiB).toFixed(0)} MiB of live heap`,
    );
  }
  for (const { concurrency } of READS) {
    const label = `GET /employee/{id}, ${concurrency} in flight`;
    const [base, loaded] = [rowOf(first, label), rowOf(last, label)];
    if (base === undefined || loaded === undefined) continue;
    const [r50, r99] = [p(loaded, 50) / p(base, 50), p(loaded, 99) / p(base, 99)];
    console.log(`- ${label} with ${largest} streams vs ${SIZES[0]}: p50 ${r50.toFixed(2)}×, p99 ${r99.toFixed(2)}× (goal ≤ ${GOAL_LATENCY_RATIO}×: ${r50 <= GOAL_LATENCY_RATIO ? 'met' : 'missed'} at p50, ${r99 <= GOAL_LATENCY_RATIO ? 'met' : 'missed'} at p99)`);
  }
}
