// Writes at a steady rate through the gateway while a scenario takes something away (a service, a
// server), creating availabilities with an Idempotency-Key that each create is retried with while its
// outcome is unknown; and the checks afterwards: every acknowledged write reads back, no availability is
// created twice, every stored availability has exactly one snapshot in the matching engine, and the other
// consumers hold every resource's last version. Shared by crash-under-load and servers-restarted.
// The writers send raw requests (every answer counted, none retried but an availability's create); the
// home base they start from and every read afterwards go through the typed client.
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import type { Data, Item } from '@rm/client';
import { apiClient, idFromLocation } from './api.ts';
import { bodies } from './fixtures.ts';
import { excerpt, StatusTally, type Finding } from './report.ts';
import type { ServiceName, SuiteStack, SuiteTenant, TypedClient } from './suite-stack.ts';

export const WRITERS = 4;
export const PAUSE_MS = 200;
/** An availability's create is sent again with its Idempotency-Key while its outcome is unknown, at most so often. */
const CREATE_ATTEMPTS = 60;
const CREATE_RETRY_PAUSE_MS = 500;
/** The engine has converged when its lists stayed the same this long; it has at most CONVERGE_MS. */
const STABLE_MS = 3_000;
/**
 * Its combinations are final once they stayed the same this long: an exact re-solve starts 2 s after the
 * last change, but no sooner than 10 s after the one before (services/matching resolver.ts), then solves.
 */
export const SETTLED_MS = 20_000;
const CONVERGE_MS = 120_000;
/** The largest page a list gives (1 to 1000 items), for reading every item. */
export const LARGEST_PAGES = { query: { limit: 1000 } };

export type Snapshot = Item<'getPagedAvailableEmployees'>;
export type Combination = Item<'getPagedResourceCombinations'>;
type StoredAvailability = Data<'getEmployeeAvailabilities'>[number];
/** What the checks read of a stored employee or transport resource. */
interface Stored {
  business_id: string;
  version: number;
  home_base?: { business_id: string };
}

export interface WriteLoadOptions {
  /** Prefix of the ids the writers put, and the rule a 5xx or no answer outside `refusal` breaks. */
  prefix: string;
  rule: string;
  /** An answer (status 0: none) that an outage of one of `owners` explains: counted as refused, not tallied. */
  refusal(owners: readonly ServiceName[], status: number, sentAt: number): boolean;
  /** A request without an answer this long has hung: a finding. */
  hangMs?: number;
}

/** A resource written with PUT: its last acknowledged write, and those sent after it without a 2xx (maybe applied). */
interface Upserted {
  path: string;
  acked?: { value: string; version: number };
  unacked: string[];
  /** As it read back after the load (readBack). */
  stored?: Stored;
}

interface Availability {
  employee: string;
  id: string;
  body: { earliest_start: string; max_duration: string };
}

export interface WriteLoad {
  tally: StatusTally;
  /** Refused answers by status ('no answer' for 0). */
  refused: Map<string, number>;
  findings: Finding[];
  /** Requests that got no answer within `hangMs`, and the longest wait for an answer (ms). */
  hung: number;
  slowest: number;
  /** Stops the writers and waits for their last requests. */
  stop(): Promise<void>;
  /**
   * (a) Reads back every acknowledged write; returns how many were lost (each a finding). Every availability
   * stored that no create acknowledged is a finding too (created twice).
   */
  readBack(): Promise<number>;
  /**
   * (b) Once the engine has converged, every stored availability has exactly one snapshot, with its window
   * start (each difference a finding). Returns how many are stored and the engine's lists.
   */
  checkSnapshots(): Promise<{ storedCount: number; live: { snapshots: Snapshot[]; combinations: Combination[] } }>;
  /**
   * (c) The other consumers' copies, read in their databases after readBack: the deployments service's
   * known resources and the home-bases service's references must hold each employee's and transport
   * resource's last version as stored. Returns how many did not (each a finding).
   */
  checkConsumers(): Promise<number>;
  /** The table rows every such scenario shows: requests, statuses, refused, acknowledged, lost. */
  rows(refusedLabel: string, lostWrites: number): [string, string | number][];
}

/**
 * Starts WRITERS writers of the tenant, each about one request every PAUSE_MS: employees, availabilities,
 * transport resources. Every third version of an employee or transport resource starts at the load's home
 * base instead of an ad-hoc location (so that the home-bases service records it); transport resources
 * cost 1 to 4, and some employees are linked to one (so that the matching engine's choices weigh both).
 */
export function startWriteLoad(suite: SuiteStack, tenant: SuiteTenant, options: WriteLoadOptions): WriteLoad {
  const { prefix, rule, refusal, hangMs = Number.POSITIVE_INFINITY } = options;
  const api = apiClient(suite, tenant);
  const rm = suite.client(tenant);
  const tally = new StatusTally();
  const refused = new Map<string, number>();
  const findings: Finding[] = [];
  const employees = new Map<string, Upserted>();
  const transportResources = new Map<string, Upserted>();
  const availabilities: Availability[] = [];
  const slots = new Map<string, number>();
  /** Creates acknowledged only after a retry, and those still unknown after every attempt. */
  let retriedCreates = 0;
  let unfinishedCreates = 0;
  /** Availabilities stored that no create acknowledged (readBack). */
  let duplicates = 0;
  let hung = 0;
  let slowest = 0;

  const homeBase = `${prefix}-hb`;
  const homeBaseCreated = rm.upsertHomeBase(homeBase, bodies.homeBase('Hub'));
  /** The version's location: every third one the home base (whose service then takes part in the write). */
  const located = <Body extends { start_location?: unknown }>(owner: ServiceName, body: Body, step: number) => {
    if (step % 3 !== 0) return { owners: [owner], body };
    const { start_location: _adHoc, ...rest } = body;
    return { owners: [owner, 'home-bases' as const], body: { ...rest, home_base: { business_id: homeBase } } };
  };

  /** One write; a status of 0 when no answer came (the connection was refused or closed). */
  async function write(owners: readonly ServiceName[], method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
    const sentAt = Date.now();
    // a refused connection (the gateway down, or the token endpoint with it) throws
    const response = await api.call(method, path, body, headers).catch(() => undefined);
    const status = response?.status ?? 0;
    const waited = Date.now() - sentAt;
    slowest = Math.max(slowest, waited);
    if (waited > hangMs) {
      hung += 1;
      findings.push({
        rule: `an answer within ${hangMs / 1000} s`,
        request: `${method} ${path}`,
        status,
        excerpt: `answered after ${waited} ms`,
      });
    }
    if (refusal(owners, status, sentAt)) {
      const label = status === 0 ? 'no answer' : String(status);
      refused.set(label, (refused.get(label) ?? 0) + 1);
    } else {
      tally.record(response?.status);
      if (status >= 500 || status === 0) {
        findings.push({ rule, request: `${method} ${path}`, status, excerpt: excerpt(response?.body ?? 'no answer') });
      }
    }
    return { status, etag: response?.headers.etag ?? '', id: response === undefined ? '' : idFromLocation(response) };
  }

  async function upsert(
    { owners, body }: { owners: readonly ServiceName[]; body: unknown },
    resources: Map<string, Upserted>,
    path: string,
    value: string,
  ): Promise<void> {
    const resource = resources.get(path) ?? { path, unacked: [] };
    resources.set(path, resource);
    const { status, etag } = await write(owners, 'PUT', path, body);
    if (status >= 200 && status < 300) {
      resources.set(path, { path, acked: { value, version: Number(etag.replace(/\D/g, '')) }, unacked: [] });
    } else resource.unacked.push(value);
  }

  async function writer(index: number): Promise<void> {
    await homeBaseCreated;
    const mine = (resources: Map<string, Upserted>) =>
      [...resources.values()].filter(({ path, acked }) => acked && path.includes(`-${index}-`));
    for (let step = 0; writing; step += 1) {
      const ownEmployees = mine(employees);
      const ownResources = mine(transportResources);
      if (step % 4 === 0) {
        const existing = ownEmployees[step % Math.max(1, ownEmployees.length)];
        const path = step % 8 === 0 || existing === undefined ? `/employee/${prefix}-e-${index}-${step}` : existing.path;
        const linked = step % 3 === 1 ? ownResources[step % Math.max(1, ownResources.length)]?.path.split('/').at(-1) : undefined;
        const body = { ...bodies.employee(`v${step}`), ...(linked === undefined ? {} : { linked_transport_resource: linked }) };
        await upsert(located('employees', body, step), employees, path, `v${step}`);
      } else if (step % 4 === 2) {
        const existing = ownResources[step % Math.max(1, ownResources.length)];
        const path = step % 8 === 2 || existing === undefined ? `/transport-resource/${prefix}-t-${index}-${step}` : existing.path;
        const body = { ...bodies.transportResource(`r${step}`), costs: { fixed: 1 + (Math.floor(step / 4) % 4) } };
        await upsert(located('transport-resources', body, step), transportResources, path, `r${step}`);
      } else if (ownEmployees.length > 0) {
        const employee = ownEmployees[step % ownEmployees.length]!.path.split('/').at(-1)!;
        // each employee's availabilities a day apart, so that none overlap
        const slot = slots.get(employee) ?? 0;
        slots.set(employee, slot + 1);
        await createAvailability(employee, bodies.availability(slot * 24), `${prefix}-a-${index}-${step}`);
      }
      await sleep(PAUSE_MS);
    }
  }

  /**
   * Creates an availability as an integrator who must not lose it would: sent again with the same
   * Idempotency-Key while its outcome is unknown (a 503, or no answer), so that it is created once.
   */
  async function createAvailability(employee: string, body: Availability['body'], idempotencyKey: string): Promise<void> {
    const path = `/employee/${employee}/availability`;
    for (let attempt = 1; attempt <= CREATE_ATTEMPTS; attempt += 1) {
      const { status, id } = await write(['employees'], 'POST', path, body, { 'idempotency-key': idempotencyKey });
      if (status === 201) {
        availabilities.push({ employee, id, body });
        if (attempt > 1) retriedCreates += 1;
        return;
      }
      // another answer says that nothing was created (a finding if it is not a refusal the scenario expects)
      if (status !== 503 && status !== 0) return;
      await sleep(CREATE_RETRY_PAUSE_MS);
    }
    unfinishedCreates += 1;
    findings.push({
      rule: 'a create retried with its Idempotency-Key is answered',
      request: `POST ${path}`,
      excerpt: `no 201 after ${CREATE_ATTEMPTS} attempts ${CREATE_RETRY_PAUSE_MS} ms apart`,
    });
  }

  let writing = true;
  const writers = Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index)));

  async function readBack(): Promise<number> {
    let lostWrites = 0;
    const lost = (request: string, what: string) => {
      lostWrites += 1;
      findings.push({ rule: 'every acknowledged write is readable', request, excerpt: what });
    };
    /** Each acknowledged write is in its list as acknowledged, or as a later write that got no answer, at a version no lower. */
    const compare = <Listed extends Stored>(resources: Map<string, Upserted>, list: string, items: Listed[], valueOf: (item: Listed) => unknown) => {
      const listed = new Map(items.map((item) => [item.business_id, item]));
      for (const resource of resources.values()) {
        const { path, acked, unacked } = resource;
        if (acked === undefined) continue;
        const item = listed.get(path.split('/').at(-1)!);
        resource.stored = item;
        const value = item === undefined ? '' : String(valueOf(item));
        if (item !== undefined && (value === acked.value || unacked.includes(value)) && item.version >= acked.version) continue;
        const read = item === undefined ? 'not listed' : `read ${value} at ${item.version}`;
        lost(`GET ${list} (every page)`, `${path}: acknowledged ${acked.value} at version ${acked.version}, ${read}`);
      }
    };
    compare(employees, '/employee', await all(rm.each.getPagedEmployees(LARGEST_PAGES)), (employee) => employee.name?.first_name);
    compare(transportResources, '/transport-resource', await all(rm.each.getPagedTransportResources(LARGEST_PAGES)), (resource) => resource.reference);
    const stored = await storedAvailabilities();
    for (const { employee, id, body } of availabilities) {
      const item = stored.get(employee)?.find((each) => each.id === id);
      if (item?.earliest_start !== body.earliest_start || item.max_duration !== body.max_duration) {
        const read = item === undefined ? 'not listed' : `read ${JSON.stringify({ earliest_start: item.earliest_start, max_duration: item.max_duration })}`;
        lost(`GET /employee/${employee}/availability`, `acknowledged ${id} ${JSON.stringify(body)}, ${read}`);
      }
    }
    duplicates = createdTwice(stored);
    return lostWrites;
  }

  /**
   * Availabilities stored that no create acknowledged: a retried create that made a second one. Each is a
   * finding; none can be told apart while a create's outcome is still unknown.
   */
  function createdTwice(stored: Map<string, StoredAvailability[]>): number {
    if (unfinishedCreates > 0) return 0;
    const acknowledged = new Set(availabilities.map(({ id }) => id));
    let extra = 0;
    for (const [employee, items] of stored) {
      for (const item of items.filter(({ id }) => !acknowledged.has(id))) {
        extra += 1;
        findings.push({
          rule: 'a create retried with its Idempotency-Key is applied once',
          request: `GET /employee/${employee}/availability`,
          status: 200,
          excerpt: `availability ${item.id} at ${item.earliest_start} was not acknowledged to any create`,
        });
      }
    }
    return extra;
  }

  async function checkConsumers(): Promise<number> {
    const mongo = new MongoClient(suite.servers.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    try {
      // they may still be catching up: a copy is behind once it stayed so for CONVERGE_MS
      const deadline = Date.now() + CONVERGE_MS;
      let behind = await copiesBehind(mongo);
      while (behind.length > 0 && Date.now() < deadline) {
        await sleep(1_000);
        behind = await copiesBehind(mongo);
      }
      findings.push(...behind);
      return behind.length;
    } finally {
      await mongo.close();
    }
  }

  async function copiesBehind(mongo: MongoClient): Promise<Finding[]> {
    const behind: Finding[] = [];
    const { databases } = suite.stack;
    // the rows' ids and entity names as the two services write them (known-resources.ts, reference-index.ts)
    const known = mongo.db(databases.deployments).collection<{ _id: string; version: number; deleted: boolean }>('known_resources');
    const references = mongo
      .db(databases['home-bases'])
      .collection<{ _id: string; version?: number; home_bases: string[] }>('home_base_references');
    for (const [resources, entity] of [
      [employees, 'employee'],
      [transportResources, 'transport-resource'],
    ] as const) {
      for (const { path, stored } of resources.values()) {
        if (stored === undefined) continue;
        const { business_id: id, version } = stored;
        const named = stored.home_base?.business_id;
        const record = await known.findOne({ _id: `${tenant.tenant}|${entity}|${id}` });
        const reference = await references.findOne({ _id: `referrer|${tenant.tenant}|${entity}|${id}` });
        const referenced = named === undefined ? (reference?.home_bases.length ?? 0) === 0 : reference?.home_bases.join() === named;
        const referenceVersion = reference === null && named === undefined ? version : reference?.version;
        if (record?.version === version && record.deleted === false && referenced && referenceVersion === version) continue;
        behind.push({
          rule: 'every event reaches every consumer exactly once in effect',
          request: `the deployments and home-bases services' copies of ${path}`,
          excerpt:
            `stored version ${version}${named === undefined ? '' : ` at ${named}`}; known: ${JSON.stringify(record)}; ` +
            `referrer: ${JSON.stringify(reference)}`,
        });
      }
    }
    return behind;
  }

  async function checkSnapshots() {
    // A write whose answer was a 503 may still be applied afterwards, when maintenance finishes the intent it
    // left (within MAINTENANCE_INTERVAL_MS): both sides are read again until they agree, for CONVERGE_MS at most.
    const deadline = Date.now() + CONVERGE_MS;
    for (;;) {
      const stored = await storedAvailabilities();
      const storedCount = [...stored.values()].reduce((sum, items) => sum + items.length, 0);
      // a restarted engine waits for its old leases to expire (MATCHING_LEASE_MS) and changes nothing meanwhile
      const live = await converged(rm, storedCount);
      const differences = snapshotDifferences(stored, live.snapshots);
      if (differences.length === 0 || Date.now() > deadline) {
        findings.push(...differences);
        return { storedCount, live };
      }
    }
  }

  /** Every acknowledged employee's stored availabilities (one list each, unpaged). */
  async function storedAvailabilities(): Promise<Map<string, StoredAvailability[]>> {
    const stored = new Map<string, StoredAvailability[]>();
    for (const { path, acked } of employees.values()) {
      const employee = path.split('/').at(-1)!;
      if (acked !== undefined) stored.set(employee, (await rm.getEmployeeAvailabilities(employee)).data);
    }
    return stored;
  }

  /** Each employee whose availabilities and snapshots are not the same ids with the same start. */
  function snapshotDifferences(stored: Map<string, StoredAvailability[]>, liveSnapshots: Snapshot[]): Finding[] {
    const snapshotsOf = Map.groupBy(liveSnapshots, (snapshot) => snapshot.employee_id);
    const ids = (items: { id: string }[]) => items.map(({ id }) => id).sort().join(' ');
    const differences: Finding[] = [];
    for (const [employee, availabilitiesOf] of stored) {
      const snapshots = snapshotsOf.get(employee) ?? [];
      // the engine writes instants with milliseconds
      const startOf = new Map(availabilitiesOf.map(({ id, earliest_start }) => [id, Date.parse(earliest_start)]));
      const wrongWindow = snapshots.filter(({ id, shift }) => startOf.get(id) !== Date.parse(shift.start));
      if (ids(availabilitiesOf) !== ids(snapshots) || wrongWindow.length > 0) {
        differences.push({
          rule: 'every availability reaches the matching engine exactly once in effect',
          request: `GET /available-employee?employee_id=${employee}`,
          status: 200,
          excerpt: `availabilities [${ids(availabilitiesOf)}], snapshots [${ids(snapshots)}], ${wrongWindow.length} starting elsewhere`,
        });
      }
    }
    return differences;
  }

  const acked = (resources: Map<string, Upserted>) => [...resources.values()].filter((resource) => resource.acked).length;
  return {
    tally,
    refused,
    findings,
    get hung() {
      return hung;
    },
    get slowest() {
      return slowest;
    },
    async stop() {
      writing = false;
      await writers;
    },
    readBack,
    checkConsumers,
    checkSnapshots,
    rows(refusedLabel, lostWrites) {
      const refusedText = [...refused].map(([status, count]) => `${status}: ${count}`).join(', ') || '0';
      return [
        ['requests', tally.requests + [...refused.values()].reduce((sum, count) => sum + count, 0)],
        ...tally.rows().slice(1),
        [refusedLabel, refusedText],
        [
          'acknowledged resources (employees, transport resources, availabilities)',
          `${acked(employees)}, ${acked(transportResources)}, ${availabilities.length}`,
        ],
        ['availability creates acknowledged after a retry with their Idempotency-Key', retriedCreates],
        ['availabilities created twice', unfinishedCreates > 0 ? 'not known: a create went unanswered' : duplicates],
        ['lost writes', lostWrites],
      ];
    },
  };
}

/** Every item of a paged list (the typed client's `each.*`). */
export async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const every: T[] = [];
  for await (const item of items) every.push(item);
  return every;
}

/**
 * The engine's snapshots and combinations once both lists stayed the same for `stableMs` and hold at least `atLeast`
 * snapshots; `rm` reads them through the gateway or from a matching process.
 */
export async function converged(
  rm: TypedClient,
  atLeast = 0,
  stableMs = STABLE_MS,
): Promise<{ snapshots: Snapshot[]; combinations: Combination[] }> {
  const deadline = Date.now() + CONVERGE_MS;
  let last = '';
  let since = Date.now();
  for (;;) {
    const snapshots = await all(rm.each.getPagedAvailableEmployees(LARGEST_PAGES));
    const combinations = await all(rm.each.getPagedResourceCombinations(LARGEST_PAGES));
    const versions = (items: { id: string; version: number }[]) => items.map(({ id, version }) => `${id}@${version}`);
    const state = JSON.stringify([versions(snapshots), versions(combinations)]);
    if (state !== last) [last, since] = [state, Date.now()];
    const stable = Date.now() - since >= stableMs && snapshots.length >= atLeast;
    if (stable || Date.now() > deadline) return { snapshots, combinations };
    await sleep(500);
  }
}
