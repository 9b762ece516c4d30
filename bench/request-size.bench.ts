// Request size: what a header or body of 15,000 characters, in the shape that costs a parser most, costs
// the employees service (inject) against the same request with that part small. Every path should grow
// with the size at most linearly: a pattern over request data that backtracks let one request stall
// the event loop for every tenant (issue 26). 15,000: under Node's 16 KB limit of all headers together.
import type { Bench } from './lib/bench.ts';
import { employeeFields } from './lib/employee-fixture.ts';
import { startEmployees, type StartedEmployees } from './lib/employees-app.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { measureInterleaved, warmUp } from './lib/series.ts';

const BASE = '/resource-management/v1';
const LARGE = 15_000;
const OPS = 200;
const WARM_UP_OPS = 20;
const TENANT = 'bench-sizes';
const TITLE = `Request size: each part at ${LARGE.toLocaleString('en-US')} characters in its costliest shape vs small, through the employees service (inject)`;

interface Request {
  method: 'GET' | 'PUT';
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** A case: the same request with one part small and large, and the status both must get. */
interface SizeCase {
  part: string;
  status: number;
  small(request: Request): Request;
  large(request: Request): Request;
}

const withHeader = (name: string, value: string) => (request: Request): Request => ({ ...request, headers: { ...request.headers, [name]: value } });

const CASES: SizeCase[] = [
  // the quadratic Bearer pattern's worst case: credentials of spaces between two characters
  { part: 'Authorization', status: 401, small: withHeader('authorization', 'Bearer a b'), large: withHeader('authorization', `Bearer a${' '.repeat(LARGE)}b`) },
  // from a trusted proxy, read for a write's Location: a run of slashes the trailing-slash pattern tried at each one
  { part: 'X-Forwarded-Prefix', status: 200, small: forwarded('/rm'), large: forwarded(`${'/'.repeat(LARGE)}x`) },
  { part: 'X-Request-Id', status: 200, small: withHeader('x-request-id', 'r1'), large: withHeader('x-request-id', 'r'.repeat(LARGE)) },
  { part: 'Host', status: 400, small: withHeader('host', 'a-'), large: withHeader('host', `${'a'.repeat(60)}.`.repeat(LARGE / 61) + '-') },
  // a PUT refused at its If-Match before any write
  { part: 'If-Match', status: 400, small: put('"a" x'), large: put(`"a"${' '.repeat(LARGE)}x`) },
  { part: 'Content-Type', status: 415, small: put(undefined, 'text/plain; a=b'), large: put(undefined, `text/plain${'; a=b'.repeat(LARGE / 5)}`) },
  // a first name over its 200 characters
  { part: 'body', status: 400, small: put(undefined, undefined, 'x'.repeat(201)), large: put(undefined, undefined, 'x'.repeat(LARGE)) },
];

/** A PUT that stores the employee as it is, through a trusted proxy's prefix. */
function forwarded(prefix: string) {
  return (request: Request): Request => withHeader('x-forwarded-prefix', prefix)(put()(request));
}

/** A PUT of an employee with an If-Match, a content type or a first name of the case's own. */
function put(ifMatch?: string, contentType = 'application/json', firstName?: string) {
  return (request: Request): Request => ({
    ...request,
    method: 'PUT',
    headers: { ...request.headers, 'content-type': contentType, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
    payload: JSON.stringify({ ...employeeFields(0), ...(firstName === undefined ? {} : { name: { first_name: firstName, last_name: 'Peeters' } }) }),
  });
}

export const requestSizeBench: Bench = {
  name: 'request-size',
  async run() {
    const started = await startEmployees('bench_sizes', { TRUST_PROXY: '127.0.0.1' });
    try {
      const headers = await started.bearer(TENANT);
      const stored = await inject(started, { method: 'PUT', url: `${BASE}/employee/e1`, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(employeeFields(1)) });
      if (stored >= 300) throw new Error(`the employee could not be stored: ${stored}`);
      const request: Request = { method: 'GET', url: `${BASE}/employee/e1`, headers };
      const rows: ReportRow[] = [];
      for (const { part, status, small, large } of CASES) {
        const series = [
          { label: `${part}: small`, request: small(request) },
          { label: `${part}: ${LARGE.toLocaleString('en-US')} characters`, request: large(request) },
        ].map(({ label, request: sent }) => ({
          label,
          operation: async () => {
            const answered = await inject(started, sent);
            if (answered !== status) throw new Error(`${label}: ${answered}, not ${status}`);
          },
        }));
        for (const { operation } of series) await warmUp({ ops: WARM_UP_OPS, concurrency: 1, operation });
        const [baseline, measured] = await measureInterleaved(OPS, series);
        if (baseline !== undefined && measured !== undefined) rows.push({ result: baseline }, { result: measured, baseline });
      }
      printTable(TITLE, rows);
    } finally {
      await started.close();
    }
  },
};

async function inject(started: StartedEmployees, request: Request): Promise<number> {
  const response = await started.service.app.inject(request);
  return response.statusCode;
}
