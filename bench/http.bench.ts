// HTTP: what the employees service's HTTP layer (routing, JSON schema validation, token verification,
// domain rules, serialization) adds to the repository call it makes, through Fastify's inject().
import type { EmployeeFields } from '@rm/contracts';
import { createCursorCodec, isStringKey, paginate } from '@rm/service-kit';
import { listPosition, type Resource, type StoredDocument } from '@rm/store';
import { type EmployeeRepository, EMPLOYEES_COLLECTION } from '@rm/employees/testing';
import type { Bench, BenchContext } from './lib/bench.ts';
import { employeeFields, employeeKey, storedEmployee } from './lib/employee-fixture.ts';
import { employeePage, startEmployees, type StartedEmployees } from './lib/employees-app.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { measureInterleaved, measureSeries, warmUp, type InterleavedSeries, type SeriesResult } from './lib/series.ts';

const BASE = '/resource-management/v1';
/** Creates per series; FerretDB's cost per write grows with the collection (see README). */
const PUT_OPS = 200;
/** Employees a listed tenant has, and the page size. */
const LISTED = 2000;
const PAGE_SIZE = 100;
/** A page read takes a third of a second and more on FerretDB: a couple warm each path. */
const LISTING_WARM_UP_OPS = 2;
const WARM_UP_OPS = 20;
const IN_FLIGHT = [1, 16];
const TENANT = 'bench-tenant';
const LISTED_TENANT = 'bench-listed';
const TITLE = 'HTTP: PUT / GET through the employees service (inject) vs the repository call';

export const httpBench: Bench = {
  name: 'http',
  async run(context) {
    // Two services as the runtime runs them (store, relay, maintenance), each on a database of its
    // own: one is driven through HTTP, the other through its repository, at equal collection sizes.
    const app = await startApp();
    const direct = await startApp();
    try {
      const rows: ReportRow[] = [];
      await comparePuts(context, app, direct.service.collections.employees, rows);
      await compareHomeBaseClaims(context, app, rows);
      await compareListing(app, rows);
      printTable(TITLE, rows);
    } finally {
      await app.close();
      await direct.close();
    }
  },
};

interface StartedApp extends StartedEmployees {
  /** Bearer headers of a client of TENANT and of one of LISTED_TENANT. */
  headers: Record<string, string>;
  listHeaders: Record<string, string>;
}

async function startApp(): Promise<StartedApp> {
  const started = await startEmployees('bench_http');
  return { ...started, headers: await started.bearer(TENANT), listHeaders: await started.bearer(LISTED_TENANT) };
}

async function comparePuts(context: BenchContext, app: StartedApp, direct: EmployeeRepository, rows: ReportRow[]) {
  const httpPut = (prefix: string) => async (index: number) => {
    const response = await app.service.app.inject({
      method: 'PUT',
      url: `${BASE}/employee/${employeeKey(prefix, index)}`,
      headers: app.headers,
      payload: employeeFields(index),
    });
    if (response.statusCode !== 201) throw new Error(`PUT answered ${response.statusCode}: ${response.body}`);
  };
  const directPut = (prefix: string) => (index: number) => direct.put({ tenant: TENANT, key: employeeKey(prefix, index) }, employeeFields(index));
  await warmUp({ ops: WARM_UP_OPS, operation: httpPut('warm') });
  await warmUp({ ops: WARM_UP_OPS, operation: directPut('warm') });
  for (const concurrency of IN_FLIGHT) {
    const prefix = `c${concurrency}`;
    const baseline = await measureSeries(context.probe, { label: 'repository put() create', ops: PUT_OPS, concurrency, operation: directPut(prefix) });
    const result = await measureSeries(context.probe, { label: 'PUT /employee/{id} create', ops: PUT_OPS, concurrency, operation: httpPut(prefix) });
    rows.push({ result: baseline }, { result, baseline });
  }
}

const CLAIMED_HOME_BASE = 'bench-depot';

/**
 * What claiming a home base at the home-bases service (two calls over HTTP: claim, then settle) adds
 * to a PUT that names one, against the same PUT at an ad-hoc location, which makes no call.
 */
async function compareHomeBaseClaims(context: BenchContext, app: StartedApp, rows: ReportRow[]) {
  const created = await app.homeBases.app.inject({
    method: 'PUT',
    url: `${BASE}/home-base/${CLAIMED_HOME_BASE}`,
    headers: app.headers,
    payload: { name: 'Depot', address: { name: 'Depot', city: 'Gent', zip_code: '9000', country_code: 'BE' } },
  });
  if (created.statusCode !== 201) throw new Error(`home base PUT answered ${created.statusCode}: ${created.body}`);
  const put = (prefix: string, atHomeBase: boolean) => async (index: number) => {
    const { start_location: _adHoc, ...fields } = employeeFields(index);
    const response = await app.service.app.inject({
      method: 'PUT',
      url: `${BASE}/employee/${employeeKey(prefix, index)}`,
      headers: app.headers,
      payload: atHomeBase ? { ...fields, home_base: { business_id: CLAIMED_HOME_BASE } } : employeeFields(index),
    });
    if (response.statusCode !== 201) throw new Error(`PUT answered ${response.statusCode}: ${response.body}`);
  };
  await warmUp({ ops: WARM_UP_OPS, operation: put('warm-hb', true) });
  for (const concurrency of IN_FLIGHT) {
    const prefix = `hb${concurrency}`;
    const baseline = await measureSeries(context.probe, {
      label: 'PUT /employee/{id} create, ad-hoc location',
      ops: PUT_OPS,
      concurrency,
      operation: put(`${prefix}-adhoc`, false),
    });
    const result = await measureSeries(context.probe, {
      label: 'PUT /employee/{id} create, naming a home base',
      ops: PUT_OPS,
      concurrency,
      operation: put(`${prefix}-claimed`, true),
    });
    rows.push({ result: baseline }, { result, baseline });
  }
}

/**
 * Walks one tenant's employees page by page three ways: list() of a page (the baseline), the same
 * pages through service-kit's paginate() as the route calls it (one more item, and a probe for `prev`
 * on every page reached by cursor), and GET through the app; the middle row tells the database work
 * of paging apart from the HTTP layer. All three read the app's own collection, page by page in turn:
 * FerretDB slows down as a run goes on, and a walk takes seconds. One page at a time only: FerretDB's
 * reads are CPU-bound on this machine's two cores, so pages in flight at once only queue.
 */
async function compareListing(app: StartedApp, rows: ReportRow[]) {
  await seed(app);
  const employees = app.service.collections.employees;
  const codec = createCursorCodec(app.service.config.CURSOR_SECRET);
  const walks: Walk[] = [
    // list() pages by the last item's list position: its "cursor" is that position
    createWalk(`repository list() of ${PAGE_SIZE}`, async (after) => {
      const page = await employees.list({ tenant: LISTED_TENANT }, { bound: after === undefined ? undefined : { after }, descending: false, limit: PAGE_SIZE });
      const last = page.at(-1);
      return { items: page.length, next: last === undefined ? undefined : listPosition(last.key) };
    }),
    createWalk('paginate() + list(), no HTTP', async (cursor) => {
      const page = await paginate({
        cursor,
        limit: PAGE_SIZE,
        codec,
        key: (employee: Resource<EmployeeFields>) => listPosition(employee.key),
        isKey: isStringKey,
        scope: `${LISTED_TENANT}:employees`,
        fetch: (read) => employees.list({ tenant: LISTED_TENANT }, read),
      });
      return { items: page.items.length, next: page.cursors.next };
    }),
    createWalk(`GET /employee?limit=${PAGE_SIZE}`, (cursor) => employeePage(app, app.listHeaders, PAGE_SIZE, cursor)),
  ];
  for (const walk of walks) await warmUp({ ops: LISTING_WARM_UP_OPS, operation: () => walk.readFirst() });
  const [baseline, ...others] = await measureInterleaved(Math.ceil(LISTED / PAGE_SIZE), walks);
  for (const walk of walks) walk.checkListedAll();
  rows.push({ result: baseline as SeriesResult }, ...others.map((result) => ({ result, baseline })));
}

/** A page read: how many employees it had, and where the next page starts. */
interface Page {
  items: number;
  next: string | undefined;
}

interface Walk extends InterleavedSeries {
  readFirst(): Promise<Page>;
  /** Throws unless the walk's pages held every listed employee. */
  checkListedAll(): void;
}

/** Follows the pages of readPage one by one: operation `index` reads page `index`. */
function createWalk(label: string, readPage: (cursor: string | undefined) => Promise<Page>): Walk {
  const cursors: (string | undefined)[] = [undefined];
  let listed = 0;
  return {
    label,
    readFirst: () => readPage(undefined),
    async operation(index) {
      const page = await readPage(cursors[index]);
      listed += page.items;
      cursors.push(page.next);
    },
    checkListedAll() {
      if (listed !== LISTED) throw new Error(`${label}: the walk listed ${listed} employees, not ${LISTED}`);
    },
  };
}

/** The listed employees, written in bulk: put() one by one would take minutes on FerretDB. */
async function seed(app: StartedApp): Promise<void> {
  const employees = Array.from({ length: LISTED }, (_, index) => storedEmployee(LISTED_TENANT, employeeKey('listed', index), index));
  await app.service.store.db.collection<StoredDocument<EmployeeFields>>(EMPLOYEES_COLLECTION).insertMany(employees);
}
