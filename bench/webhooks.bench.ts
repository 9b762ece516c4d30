// Webhooks (issue 29): deliveries of the webhooks service on the whole stack as `npm start` runs it
// (scripts/stack.ts: every service a process of its own under the pods' heap limit, WEBHOOK_TARGETS=any
// so that the bench's receivers on 127.0.0.1 are allowed). A tenant subscribes a receiver of the bench
// (`PUT /webhook-subscription/{id}`, types `employee.*`) and writes new employees through the gateway one
// at a time; each write is timed from the PUT sent until the receiver has its delivery (the body's
// entity_id names the employee, the webhook-id header is the event's id). Baseline: the same event at a
// plain ordered consumer of RM_EMPLOYEES (the broker alone), and the delivery's lag behind it. Three cases:
// - idle: nothing else delivered;
// - a second tenant, whose receiver on another port never answers, writes as many employees at the same
//   time (fairness: its attempts hang until WEBHOOK_TIMEOUT_MS, and must hold no one else's);
// - the same with a third tenant whose hanging receiver is on the measured receiver's host and port
//   (another path): tenants of one receiving service, as a hosted webhook inbox would have.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { verifySignature } from '@rm/webhooks/signature';
import { parseMetricSamples, testServers } from '@rm/testkit';
import { createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions, type Stack, type ThrowawayTenant } from '../scripts/stack.ts';
import { createArrivals } from './lib/arrivals.ts';
import type { Bench } from './lib/bench.ts';
import { followEmployeeEvents, type EmployeeEventFollower } from './lib/employee-events.ts';
import { API_BASE, bearer, putEmployee } from './lib/gateway-calls.ts';
import { issueToken } from './lib/gateway-token.ts';
import { printMarkdown } from './lib/report.ts';
import { reportProgress, type SeriesResult } from './lib/series.ts';
import { msSince, nsToMs, percentile, sortedAscending } from './lib/stats.ts';
import { POD_NODE_OPTIONS } from './lib/pod-node-options.ts';

/** Writes of the measured tenant per case, one at a time; the hanging tenant writes as many meanwhile. */
const WRITES = Number(process.env.BENCH_WEBHOOKS_WRITES ?? 200);
const WARM_UP_WRITES = 20;
/** An event not at the bench's NATS consumer by then is counted as lost. */
const EVENT_TIMEOUT_MS = 10_000;
/** Each write waits this long for its delivery before the next; a later one is still timed when it comes. */
const DELIVERY_WAIT_MS = 2_000;
/** A delivery not received this long after its PUT was sent is counted as not delivered. */
const DELIVERY_TIMEOUT_MS = 60_000;
/** Issue 29's goal: PUT sent → delivered, p99, on an idle stack; and the same while another tenant's receiver hangs. */
const GOAL_P99_MS = 2_000;

export const webhooksBench: Bench = {
  name: 'webhooks',
  async run(context) {
    const servers = testServers();
    const warnings: string[] = [];
    const exits: string[] = [];
    const stack = await startStack({
      ...throwawayStackOptions(servers, 'bench_hooks'),
      nodeOptions: POD_NODE_OPTIONS,
      gatewayVariables: { TENANT_REQUEST_RATE: '1000000', TOKEN_LIFETIME_SECONDS: '3600' },
      onLine: (service, line) => void (service === 'webhooks' && isWarning(line) && warnings.push(line)),
      onExit: (service, reason) => void exits.push(`${service} exited (${reason})`),
    });
    if (!stack.services.includes('webhooks')) {
      await stopThrowawayStack(stack, servers);
      throw new Error('services/webhooks is not built (npm run build)');
    }
    const toGateway = new Pool(stack.gateway, { connections: 16 });
    let secret: string | undefined;
    const receivers = await startReceivers(() => secret);
    let broker: EmployeeEventFollower | undefined;
    try {
      const [measured, hangingElsewhere, hangingAlongside] = await Promise.all(['bench-hook', 'bench-hang', 'bench-hang-same'].map((prefix) => tenantOf(stack, toGateway, prefix)));
      secret = await subscribe(toGateway, measured!.token, 'measured', `${receivers.measured.origin}/hook`);
      broker = await followEmployeeEvents(context, measured!.tenant, EVENT_TIMEOUT_MS);
      const target: WriteTarget = { toGateway, tenant: measured!, broker, receiver: receivers.measured };
      await measureWrites(target, 'warm', WARM_UP_WRITES);

      const cases: CaseFigures[] = [];
      cases.push(await measureCase(stack, target, 'idle', 'idle'));

      await subscribe(toGateway, hangingElsewhere!.token, 'hangs', `${receivers.elsewhere.origin}/hang`);
      cases.push(await measureCase(stack, target, 'another tenant, hanging receiver on another port', 'elsewhere', { tenant: hangingElsewhere!, receiver: receivers.elsewhere }));
      // its deliveries dropped, so that only the next case's hanging tenant holds attempts
      await unsubscribe(toGateway, hangingElsewhere!.token, 'hangs');

      await subscribe(toGateway, hangingAlongside!.token, 'hangs', `${receivers.measured.origin}/hang`);
      cases.push(await measureCase(stack, target, "another tenant, hanging receiver on the measured receiver's host and port", 'alongside', { tenant: hangingAlongside!, receiver: receivers.measured }));

      printLatencies(cases);
      printChecks(cases);
      printGoals(cases);
      if (exits.length > 0) console.log(`\n${exits.join('\n')}`);
      console.log(`\nwebhooks log lines at warn or above: ${warnings.length}${warnings.length > 0 ? `; the first:\n${warnings.slice(0, 3).join('\n')}` : ''}`);
    } finally {
      await broker?.stop();
      await toGateway.destroy();
      await stopThrowawayStack(stack, servers);
      await receivers.close();
    }
  },
};

/** A log line at warn or above. */
function isWarning(line: string): boolean {
  try {
    return ['warn', 'error', 'fatal'].includes(String((JSON.parse(line) as { level?: unknown }).level));
  } catch {
    return false;
  }
}

async function tenantOf(stack: Stack, pool: Pool, prefix: string): Promise<ThrowawayTenant & { token: string }> {
  const tenant = await createThrowawayTenant(stack, prefix);
  return { ...tenant, token: await issueToken(pool, tenant) };
}

/** Subscribes the URL to every employee event of the token's tenant; answers the subscription's signing secret. */
async function subscribe(pool: Pool, token: string, id: string, url: string): Promise<string> {
  const { statusCode, body } = await pool.request({
    method: 'PUT',
    path: `${API_BASE}/webhook-subscription/${id}`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ url, types: ['employee.*'] }),
  });
  const answer = (await body.json()) as { secret?: string };
  if (statusCode !== 201 || answer.secret === undefined) throw new Error(`PUT /webhook-subscription answered ${statusCode}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.secret;
}

async function unsubscribe(pool: Pool, token: string, id: string): Promise<void> {
  const { statusCode, body } = await pool.request({ method: 'DELETE', path: `${API_BASE}/webhook-subscription/${id}`, headers: bearer(token) });
  await body.dump();
  if (statusCode !== 204) throw new Error(`DELETE /webhook-subscription answered ${statusCode}`);
}

/** One delivery as the receiver got it. */
interface Received {
  webhookId: string | undefined;
  type: string | undefined;
  entityId: string | undefined;
  /** The signature checked when it came, under the measured subscription's secret. */
  signed: boolean;
}

/**
 * A receiving service on 127.0.0.1: `/hook` answers 204 at once and records each employee.created by its
 * entity id; `/hang` takes the request and never answers (until close).
 */
interface Receiver {
  origin: string;
  arrivals: ReturnType<typeof createArrivals>;
  received: Received[];
  /** Requests to /hang so far. */
  hanging(): number;
  close(): Promise<void>;
}

async function startReceiver(secret: () => string | undefined): Promise<Receiver> {
  const arrivals = createArrivals(DELIVERY_TIMEOUT_MS);
  const received: Received[] = [];
  let hanging = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith('/hang') === true) {
      hanging += 1;
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(204).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, request.headers[name] as string | undefined]));
      let event: { type?: string; entity_id?: string } = {};
      try {
        event = JSON.parse(body) as typeof event;
      } catch {
        // counted below as a delivery of no employee
      }
      received.push({ webhookId: headers['webhook-id'], type: event.type, entityId: event.entity_id, signed: verifySignature(secret() ?? '', headers, body) });
      if (event.type === 'employee.created' && event.entity_id !== undefined) arrivals.record(event.entity_id);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    received,
    hanging: () => hanging,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).finally(() => server.closeAllConnections()),
  };
}

/** The measured tenant's receiving service, and another on a port of its own. */
async function startReceivers(secret: () => string | undefined): Promise<{ measured: Receiver; elsewhere: Receiver; close(): Promise<void> }> {
  const [measured, elsewhere] = await Promise.all([startReceiver(secret), startReceiver(secret)]);
  return { measured, elsewhere, close: async () => void (await Promise.all([measured.close(), elsewhere.close()])) };
}

interface WriteTarget {
  toGateway: Pool;
  tenant: ThrowawayTenant & { token: string };
  broker: EmployeeEventFollower;
  receiver: Receiver;
}

interface Series {
  answered: SeriesResult;
  atBroker: SeriesResult;
  delivered: SeriesResult;
  lag: SeriesResult;
  written: string[];
}

/**
 * PUTs `count` new employees one at a time, each after its event reached the broker's consumer and its
 * delivery the receiver (or DELIVERY_WAIT_MS passed; a later delivery is still timed, up to
 * DELIVERY_TIMEOUT_MS after its PUT); times from the PUT sent.
 */
async function measureWrites({ toGateway, tenant, broker, receiver }: WriteTarget, tag: string, count: number): Promise<Series> {
  const series = (label: string): SeriesResult => ({ label, ops: count, concurrency: 1, totalMs: 0, latenciesMs: [], errors: new Map() });
  const answered = series('PUT /employee/{id} answered');
  const atBroker = series('PUT sent → event at a NATS ordered consumer');
  const delivered = series('PUT sent → webhook delivered');
  const lag = series('the same event: delivered after at NATS');
  const fail = (result: SeriesResult, message: string) => result.errors.set(message, (result.errors.get(message) ?? 0) + 1);
  const written: string[] = [];
  const deliveries: Promise<void>[] = [];
  const start = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) {
    const key = `hook-${tag}-${index}`;
    const sent = process.hrtime.bigint();
    try {
      await putEmployee(toGateway, tenant.token, key, index);
    } catch (error) {
      for (const result of [answered, atBroker, delivered, lag]) fail(result, error instanceof Error ? error.message : String(error));
      continue;
    }
    answered.latenciesMs.push(msSince(sent));
    written.push(key);
    const fromBroker = broker.arrivals.wait(key).then(
      (at) => at,
      () => undefined,
    );
    const delivery = receiver.arrivals.wait(key).then(
      (at) => at,
      () => undefined,
    );
    deliveries.push(
      Promise.all([fromBroker, delivery]).then(([brokerAt, deliveredAt]) => {
        if (brokerAt === undefined) fail(atBroker, `no event at NATS within ${EVENT_TIMEOUT_MS} ms`);
        else atBroker.latenciesMs.push(nsToMs(brokerAt - sent));
        if (deliveredAt === undefined) fail(delivered, `not delivered within ${DELIVERY_TIMEOUT_MS / 1000} s`);
        else delivered.latenciesMs.push(nsToMs(deliveredAt - sent));
        // negative when the bench's consumer had it after the receiver
        if (brokerAt !== undefined && deliveredAt !== undefined) lag.latenciesMs.push(nsToMs(deliveredAt - brokerAt));
        else fail(lag, 'an event missing');
      }),
    );
    await Promise.all([fromBroker, Promise.race([delivery, sleep(DELIVERY_WAIT_MS)])]);
  }
  const totalMs = msSince(start);
  await Promise.all(deliveries);
  for (const result of [answered, atBroker, delivered, lag]) {
    result.totalMs = totalMs;
    if (tag !== 'warm') reportProgress(result);
  }
  return { answered, atBroker, delivered, lag, written };
}

/** The webhooks service's own counts (its /metrics). */
interface DeliveryCounts {
  delivered: number;
  failed: number;
  pending: number;
  /** Attempts that started more than 1 s after they were due. */
  startedLate: number;
}

async function deliveryCounts(stack: Stack): Promise<DeliveryCounts> {
  const metrics = parseMetricSamples(await (await fetch(`${stack.origins.webhooks}/metrics`)).text());
  const value = (name: string, labels: Record<string, string> = {}) => metrics.value(name, labels) ?? 0;
  return {
    delivered: value('rm_webhook_attempts_total', { outcome: 'delivered' }),
    failed: value('rm_webhook_attempts_total', { outcome: 'failed' }),
    pending: value('rm_webhook_deliveries_pending'),
    startedLate: value('rm_webhook_start_delay_seconds_count') - value('rm_webhook_start_delay_seconds_bucket', { le: '1' }),
  };
}

interface CaseFigures {
  name: string;
  series: Series;
  /** Of the measured tenant's deliveries during the case. */
  check: { received: number; missing: number; duplicates: number; wrongId: number; badSignature: number; notEmployeeCreated: number };
  /** The hanging tenant's writes that answered 201, and the requests its receiver had by the end. */
  noisy?: { written: number; failed: number; requests: number };
  before: DeliveryCounts;
  after: DeliveryCounts;
}

/**
 * The measured tenant's WRITES, while the noisy tenant (if any) writes as many employees one at a time
 * meanwhile, each an event its hanging receiver is sent.
 */
async function measureCase(stack: Stack, target: WriteTarget, name: string, tag: string, noisy?: { tenant: ThrowawayTenant & { token: string }; receiver: Receiver }): Promise<CaseFigures> {
  console.log(`\n${name}:`);
  const before = await deliveryCounts(stack);
  const firstReceived = target.receiver.received.length;
  const hangingBefore = noisy?.receiver.hanging() ?? 0;
  let stop = false;
  const noisyWrites = (async () => {
    let [written, failed] = [0, 0];
    for (let index = 0; noisy !== undefined && !stop && written + failed < WRITES; index += 1) {
      try {
        await putEmployee(target.toGateway, noisy.tenant.token, `noise-${index}`, index);
        written += 1;
      } catch {
        failed += 1;
      }
    }
    return { written, failed };
  })();
  let series: Series;
  try {
    series = await measureWrites(target, tag, WRITES);
  } finally {
    stop = true;
  }
  const { written, failed } = await noisyWrites;
  const after = await deliveryCounts(stack);
  const received = target.receiver.received.slice(firstReceived);
  const ids = received.map(({ webhookId }) => webhookId);
  const writtenKeys = new Set(series.written);
  const ofCase = received.filter(({ entityId }) => entityId !== undefined && writtenKeys.has(entityId));
  const delivered = new Set(ofCase.map(({ entityId }) => entityId));
  return {
    name,
    series,
    check: {
      received: received.length,
      missing: series.written.filter((key) => !delivered.has(key)).length,
      duplicates: ids.length - new Set(ids).size,
      wrongId: ofCase.filter(({ entityId, webhookId }) => target.broker.eventIds.get(entityId!) !== webhookId).length,
      badSignature: received.filter(({ signed }) => !signed).length,
      notEmployeeCreated: received.filter(({ type }) => type !== 'employee.created').length,
    },
    ...(noisy === undefined ? {} : { noisy: { written, failed, requests: noisy.receiver.hanging() - hangingBefore } }),
    before,
    after,
  };
}

function p(result: SeriesResult, percent: number): number {
  return percentile(sortedAscending(result.latenciesMs), percent);
}

const fixed = (value: number) => (Number.isNaN(value) ? '–' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

function cell(result: SeriesResult, baseline?: SeriesResult): string {
  const failed = result.ops - result.latenciesMs.length;
  return `${fixed(p(result, 50))} / ${fixed(p(result, 99))}${baseline === undefined ? '' : ` (${(p(result, 50) / p(baseline, 50)).toFixed(2)}×)`}${failed > 0 ? `, ${failed} failed` : ''}`;
}

function printLatencies(cases: CaseFigures[]): void {
  const rows = (['answered', 'atBroker', 'delivered', 'lag'] as const).map((measure) => [
    cases[0]!.series[measure].label,
    ...cases.map(({ series }) => cell(series[measure], measure === 'delivered' ? series.atBroker : undefined)),
  ]);
  printMarkdown(
    `Webhooks: ${WRITES} employee PUTs one at a time through the gateway, p50 / p99 ms (p50 × the NATS baseline); the columns: what else was delivered meanwhile`,
    ['case', ...cases.map(({ name }) => name)],
    rows,
  );
  for (const { name, series } of cases) {
    for (const result of [series.answered, series.atBroker, series.delivered, series.lag]) {
      for (const [message, count] of result.errors) console.log(`\n${name}, ${result.label}: ${count}× ${message}`);
    }
  }
}

function printChecks(cases: CaseFigures[]): void {
  const delta = (figures: CaseFigures, field: keyof DeliveryCounts) => String(figures.after[field] - figures.before[field]);
  printMarkdown(
    'Deliveries of each case: the measured receiver (only employee.created of the measured tenant expected), the hanging one, and the service (its /metrics, over the case)',
    [
      'case',
      'received',
      'writes not delivered',
      'repeated webhook-id',
      'webhook-id ≠ event id',
      'bad signature',
      'other types',
      'hanging tenant: writes / failed / requests to its receiver',
      'attempts delivered / failed',
      'attempts started > 1 s late',
      'pending at the end',
    ],
    cases.map((figures) => {
      const { check, noisy } = figures;
      return [
        figures.name,
        String(check.received),
        String(check.missing),
        String(check.duplicates),
        String(check.wrongId),
        String(check.badSignature),
        String(check.notEmployeeCreated),
        noisy === undefined ? '–' : `${noisy.written} / ${noisy.failed} / ${noisy.requests}`,
        `${delta(figures, 'delivered')} / ${delta(figures, 'failed')}`,
        delta(figures, 'startedLate'),
        String(figures.after.pending),
      ];
    }),
  );
}

function printGoals(cases: CaseFigures[]): void {
  const [idle, ...loaded] = cases;
  if (idle === undefined) return;
  const idleP99 = p(idle.series.delivered, 99);
  console.log('\nGoals of issue 29:');
  console.log(`- PUT sent → delivered p99, idle: ${idleP99.toFixed(0)} ms (goal ≤ ${GOAL_P99_MS} ms: ${idleP99 <= GOAL_P99_MS ? 'met' : 'missed'})`);
  for (const figures of loaded) {
    const p99 = p(figures.series.delivered, 99);
    console.log(`- the same with ${figures.name}: p99 ${p99.toFixed(0)} ms, ${(p99 / idleP99).toFixed(2)}× idle (${p99 <= GOAL_P99_MS ? 'within' : 'beyond'} the ${GOAL_P99_MS} ms goal)`);
  }
}
