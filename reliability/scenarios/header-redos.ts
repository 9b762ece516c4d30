// Header ReDoS: every request header the stack reads, at 15,000 characters in the shape that costs a
// pattern most (Node's limit is 16 KB for all headers together), sent through the gateway to the owner
// that reads it, beside the same request with that header small. No answer may be a 5xx or missing, each
// must have the status of its small twin; what the large one costs beside the small is reported (the
// request-size bench measures the same against the service alone).
import { randomInt } from 'node:crypto';
import { bodies } from '../lib/fixtures.ts';
import { send, type RawRequest, type RawResponse } from '../lib/http.ts';
import { excerpt, StatusTally, type Finding, type ScenarioReport, type Size } from '../lib/report.ts';
import { BASE_PATH, type SuiteStack } from '../lib/suite-stack.ts';

const LARGE = 15_000;
const ROUNDS: Record<Size, number> = { full: 40, short: 8 };

interface HeaderCase {
  header: string;
  /** The request with the header's value; `large` tells which. */
  request(value: string): RawRequest;
  small: string;
  large: string;
}

type Rows = [string, string | number][];

export async function headerRedos(suite: SuiteStack, size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const tally = new StatusTally();
  const findings: Finding[] = [];
  const tenant = await suite.newTenant('redos');
  await suite.client(tenant).upsertEmployee('redos', bodies.employee());
  const bearer = { authorization: `Bearer ${await suite.token(tenant)}` };
  const employee = `${BASE_PATH}/employee/redos`;

  const get = (headers: Record<string, string>): RawRequest => ({ method: 'GET', path: employee, headers: { ...bearer, ...headers } });
  const put = (headers: Record<string, string>): RawRequest => ({
    method: 'PUT',
    path: employee,
    headers: { ...bearer, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(bodies.employee()),
  });
  const cases: HeaderCase[] = [
    { header: 'Authorization (Bearer)', request: (value) => ({ method: 'GET', path: employee, headers: { authorization: value } }), small: 'Bearer a b', large: `Bearer a${' '.repeat(LARGE)}b` },
    {
      header: 'Authorization (Basic, token endpoint)',
      // each from an address of its own behind the trusted proxy: the token rate is per address
      request: (value) => ({
        method: 'POST',
        path: '/oauth2/token',
        headers: { authorization: value, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.18.${randomInt(256)}.${randomInt(1, 255)}` },
        body: 'grant_type=client_credentials',
      }),
      small: 'Basic a b',
      large: `Basic a${' '.repeat(LARGE)}b`,
    },
    { header: 'If-Match', request: (value) => put({ 'if-match': value }), small: '"a" x', large: `"a"${' '.repeat(LARGE)}x` },
    { header: 'Content-Type', request: (value) => put({ 'content-type': value }), small: 'text/plain; a=b', large: `text/plain${'; a=b'.repeat(LARGE / 5)}` },
    { header: 'Prefer', request: (value) => put({ prefer: value }), small: 'return=minimal', large: `return=minimal${'; a=b'.repeat(LARGE / 5)}` },
    { header: 'X-Request-Id', request: (value) => get({ 'x-request-id': value }), small: 'r1', large: 'r'.repeat(LARGE) },
    { header: 'X-Forwarded-For (from the trusted proxy)', request: (value) => get({ 'x-forwarded-for': value }), small: '192.0.2.1', large: '192.0.2.1, '.repeat(LARGE / 11) + '192.0.2.1' },
    { header: 'X-Forwarded-Prefix', request: (value) => get({ 'x-forwarded-prefix': value }), small: '/rm', large: `${'/'.repeat(LARGE)}x` },
    { header: 'traceparent', request: (value) => get({ traceparent: value }), small: '00-x', large: `00-${'0'.repeat(LARGE)}-x` },
    { header: 'Accept', request: (value) => get({ accept: value }), small: 'application/json', large: 'application/json;q=0.9, '.repeat(LARGE / 24) },
    {
      header: 'Idempotency-Key',
      request: (value) => ({
        method: 'POST',
        path: `${employee}/availability`,
        headers: { ...bearer, 'content-type': 'application/json', 'idempotency-key': value },
        body: JSON.stringify(bodies.availability(6)),
      }),
      small: 'k '.repeat(200),
      large: 'k '.repeat(LARGE / 2),
    },
  ];

  const rows: Rows = [];
  let worst = 0;
  for (const { header, request, small, large } of cases) {
    const times = { small: [] as number[], large: [] as number[] };
    for (let round = 0; round < ROUNDS[size]; round += 1) {
      const [first, second] = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
      const answers: Partial<Record<'small' | 'large', RawResponse | undefined>> = {};
      for (const which of [first, second]) {
        const begin = performance.now();
        answers[which] = await send(suite.stack.gateway, request(which === 'small' ? small : large));
        times[which].push(performance.now() - begin);
        tally.record(answers[which]?.status);
      }
      const { small: smallAnswer, large: largeAnswer } = answers;
      if (largeAnswer === undefined || largeAnswer.status === 0 || largeAnswer.status >= 500 || largeAnswer.status !== smallAnswer?.status) {
        findings.push({
          rule: 'a large header is answered as its small twin, never with a 5xx',
          request: `${request(large).method} ${request(large).path} with ${header} of ${LARGE.toLocaleString('en-US')} characters`,
          status: largeAnswer?.status,
          excerpt: `small: ${smallAnswer?.status}; large: ${largeAnswer === undefined ? 'connection closed' : excerpt(largeAnswer.body)}`,
        });
        break;
      }
    }
    const ratio = median(times.large) / median(times.small);
    worst = Math.max(worst, ratio);
    rows.push([`${header}: p50 small / large ms`, `${median(times.small).toFixed(1)} / ${median(times.large).toFixed(1)} (${ratio.toFixed(2)}×)`]);
  }
  rows.push(['largest large ÷ small', `${worst.toFixed(2)}×`]);
  return {
    name: 'header-redos',
    did:
      `${cases.length} request headers the stack reads, each at ${LARGE.toLocaleString('en-US')} characters in its costliest shape (runs of spaces, ` +
      `repeated parameters and list members, slashes) beside the same request with it small, ${ROUNDS[size]} times each, alternating, through the gateway. ` +
      'Each large one must be answered as its small twin (never a 5xx or a closed connection); their median times are reported.',
    rows: [...tally.rows(), ...rows],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
