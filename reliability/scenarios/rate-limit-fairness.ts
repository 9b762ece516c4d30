// Rate-limit fairness: one tenant asks ten times its request rate, open loop (as a runaway integration
// does, whatever the answers), while another tenant reads as it always does. The noisy tenant must get
// 429s with their headers, never a 5xx, and no more than its limit in any second; the quiet tenant must
// get every answer, and its latency is reported beside its latency alone.
import { MongoClient } from 'mongodb';
import { Pool } from 'undici';
import { createClientRegistry } from '@rm/gateway/testing';
import { apiClient, type ApiClient } from '../lib/api.ts';
import { bodies } from '../lib/fixtures.ts';
import { excerpt, StatusTally, type Finding, type ScenarioReport, type Size } from '../lib/report.ts';
import { BASE_PATH, type SuiteStack, type SuiteTenant } from '../lib/suite-stack.ts';

const NOISY_RATE = 50;
const OVERLOAD = 10;
const QUIET_READS: Record<Size, number> = { full: 600, short: 150 };
/** The noisy tenant's flood is sent every 10 ms, on connections of its own. */
const TICK_MS = 10;

type Rows = [string, string | number][];

export async function rateLimitFairness(suite: SuiteStack, size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const findings: Finding[] = [];
  const noisy = await suite.newTenant('noisy');
  const quiet = await suite.newTenant('quiet');
  await setRequestRate(suite, noisy, NOISY_RATE);
  for (const tenant of [quiet, noisy]) await suite.client(tenant).upsertEmployee('fairness', bodies.employee());
  // the reads and the flood, whose answers are what is measured: raw, one request each
  const quietApi = apiClient(suite, quiet);

  const alone = await timedReads(quietApi, QUIET_READS[size], findings);
  const flood = startFlood(suite, await suite.token(noisy), NOISY_RATE * OVERLOAD, findings);
  const beside = await timedReads(quietApi, QUIET_READS[size], findings);
  const { tally, admittedPerSecond, seconds } = await flood.stop();

  const mostInOneSecond = Math.max(0, ...admittedPerSecond.values());
  const admitted = tally.count((status) => status === 200);
  // a sliding second: over the flood's s seconds, at most the rate times (s + 1), however the answers are spread
  const mostAdmitted = NOISY_RATE * (Math.ceil(seconds) + 1);
  if (tally.count((status) => status >= 500) > 0) {
    findings.push({ rule: 'a tenant over its rate gets 429, never a 5xx', request: `GET ${BASE_PATH}/employee/fairness (noisy tenant)`, excerpt: 'see the 5xx row' });
  }
  if (admitted > mostAdmitted) {
    findings.push({
      rule: `a tenant limited to ${NOISY_RATE}/s is admitted at most that many in any second`,
      request: `GET ${BASE_PATH}/employee/fairness (noisy tenant)`,
      excerpt: `${admitted} answered 200 in ${seconds.toFixed(1)} s (at most ${mostAdmitted})`,
    });
  }
  const ratio = (measure: (latencies: number[]) => number) => (measure(beside) / measure(alone)).toFixed(2);
  const rows: Rows = [
    ['noisy tenant: requests sent', tally.requests],
    ['of them 200', admitted],
    ['of them 429', tally.count((status) => status === 429)],
    ['of them 5xx', tally.count((status) => status >= 500)],
    ['of them unanswered', tally.noAnswer],
    ['noisy tenant: most 200s arriving in one clock second', mostInOneSecond],
    ['noisy tenant: seconds from the first request to the last answer', seconds.toFixed(1)],
    ['quiet tenant: reads alone, p50 / p99 ms', `${percentile(alone, 50).toFixed(1)} / ${percentile(alone, 99).toFixed(1)}`],
    ['quiet tenant: reads beside the flood, p50 / p99 ms', `${percentile(beside, 50).toFixed(1)} / ${percentile(beside, 99).toFixed(1)}`],
    ['quiet tenant: p99 beside ÷ alone', ratio((latencies) => percentile(latencies, 99))],
  ];
  return {
    name: 'rate-limit-fairness',
    did:
      `Tenant "noisy" gets a request rate of ${NOISY_RATE}/s of its own (the gateway's clients command) and sends GETs at ${NOISY_RATE * OVERLOAD}/s, ` +
      `every ${TICK_MS} ms whatever the answers, on connections of its own; tenant "quiet" reads its employee ${QUIET_READS[size]} times one ` +
      'after another alone, then as many times beside the flood. Every 429 must be problem+json with Retry-After and the RateLimit headers; ' +
      'no answer to either may be a 5xx; the noisy tenant must not be admitted more than its rate times the seconds to its last answer, plus one.',
    rows,
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Sets the tenant's own request rate in the gateway's database, as `npm run clients -- set-limits` does. */
async function setRequestRate(suite: SuiteStack, tenant: SuiteTenant, requestsPerSecond: number): Promise<void> {
  const mongo = new MongoClient(suite.servers.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  try {
    await createClientRegistry(mongo.db(suite.stack.databases.gateway)).setTenantLimits(tenant.tenant, { requestsPerSecond });
  } finally {
    await mongo.close();
  }
}

/** `reads` GETs of the tenant's employee one after another; their latencies in ms. Anything but a 200 is a finding. */
async function timedReads(api: ApiClient, reads: number, findings: Finding[]): Promise<number[]> {
  const latencies: number[] = [];
  for (let read = 0; read < reads; read += 1) {
    const start = performance.now();
    const response = await api.call('GET', '/employee/fairness');
    latencies.push(performance.now() - start);
    if (response.status !== 200) {
      findings.push({ rule: "a tenant within its rate is answered whatever another tenant does", request: `GET ${BASE_PATH}/employee/fairness (quiet tenant)`, status: response.status, excerpt: excerpt(response.body) });
    }
  }
  return latencies;
}

/** The noisy tenant's GETs at `perSecond`, sent every TICK_MS whatever has been answered; each answer checked and counted. */
function startFlood(suite: SuiteStack, token: string, perSecond: number, findings: Finding[]) {
  const pool = new Pool(suite.stack.gateway, { connections: 64 });
  const tally = new StatusTally();
  const admittedPerSecond = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  const path = `${BASE_PATH}/employee/fairness`;
  const started = performance.now();
  let sent = 0;
  const send = () => {
    const request = pool
      .request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) })
      .then(async ({ statusCode, headers, body }) => {
        const text = await body.text();
        tally.record(statusCode);
        if (statusCode === 200) {
          const second = Math.floor(performance.now() / 1_000);
          admittedPerSecond.set(second, (admittedPerSecond.get(second) ?? 0) + 1);
        }
        if (statusCode === 429 && !isWellFormedRefusal(headers)) {
          findings.push({ rule: 'a 429 is problem+json with Retry-After, RateLimit-Policy and RateLimit', request: `GET ${path} (noisy tenant)`, status: statusCode, excerpt: excerpt(JSON.stringify(headers)) });
        }
      })
      .catch(() => tally.record(undefined))
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  const ticker = setInterval(() => {
    const due = Math.floor(((performance.now() - started) * perSecond) / 1_000);
    for (; sent < due; sent += 1) send();
  }, TICK_MS);
  return {
    async stop() {
      clearInterval(ticker);
      // until the last answer: refusals are held for their Retry-After, and what waits behind them on the
      // flood's connections is admitted at the tenant's rate meanwhile
      await Promise.all(inFlight);
      const seconds = (performance.now() - started) / 1_000;
      await pool.close();
      return { tally, admittedPerSecond, seconds };
    },
  };
}

function isWellFormedRefusal(headers: Record<string, string | string[] | undefined>): boolean {
  return (
    String(headers['content-type']).startsWith('application/problem+json') &&
    headers['retry-after'] === '1' &&
    headers['ratelimit-policy'] === `"tenant";q=${NOISY_RATE};w=1` &&
    headers.ratelimit === '"tenant";r=0;t=1'
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}
