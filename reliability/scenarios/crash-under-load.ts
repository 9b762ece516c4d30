// Crash under write load: writers put employees, availabilities and transport resources through the
// gateway while each service in turn is killed with SIGKILL and started again. Afterwards every
// acknowledged write must be readable as acknowledged, every availability must have exactly one
// snapshot in the matching engine, the other consumers must hold every resource's last version, and the
// engine's combinations must be as good as those of a fresh engine that replays the streams into an empty
// database, combining the same availabilities.
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import type { Item } from '@rm/client';
import { uniqueName } from '@rm/testkit';
import type { ScenarioReport, Size } from '../lib/report.ts';
import type { ServiceName, SuiteStack, SuiteTenant } from '../lib/suite-stack.ts';
import { all, converged, LARGEST_PAGES, PAUSE_MS, SETTLED_MS, startWriteLoad, WRITERS, type Combination, type Snapshot } from '../lib/write-load.ts';

const KILLED: Record<Size, ServiceName[]> = {
  full: ['employees', 'transport-resources', 'home-bases', 'deployments', 'matching', 'gateway'],
  short: ['employees', 'matching'],
};
/** Writing before the first kill and after each restart. */
const WRITE_MS: Record<Size, number> = { full: 8_000, short: 4_000 };
const DOWN_MS = 1_000;
/** After a restart, callers may still meet the gateway's closed keep-alive connections to the old process. */
const GRACE_MS = 2_000;
const REFUSED_STATUSES = new Set([0, 502, 503, 504]);

interface Outage {
  service: ServiceName;
  from: number;
  to: number;
}

export async function crashUnderLoad(suite: SuiteStack, size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const tenant = await suite.newTenant('crash');
  const outages: Outage[] = [];
  // the writers run through every kill
  const load = startWriteLoad(suite, tenant, {
    prefix: 'crash',
    rule: 'no 5xx outside a crash',
    refusal: (owners, status, sentAt) =>
      REFUSED_STATUSES.has(status) &&
      outages.some(({ service, from, to }) => (owners.includes(service) || service === 'gateway') && sentAt <= to && Date.now() >= from),
  });
  const { findings } = load;
  const recoveries: string[] = [];
  try {
    await sleep(WRITE_MS[size]);
    for (const service of KILLED[size]) {
      const outage = { service, from: Date.now(), to: Number.POSITIVE_INFINITY };
      outages.push(outage);
      await suite.stack.kill(service);
      await sleep(DOWN_MS);
      const restarted = performance.now();
      await suite.stack.restart(service);
      recoveries.push(`${service} ${((performance.now() - restarted) / 1000).toFixed(1)} s`);
      outage.to = Date.now() + GRACE_MS;
      await sleep(WRITE_MS[size]);
    }
  } finally {
    await load.stop();
  }

  // (a) every acknowledged write reads back as acknowledged, or as a later write that got no answer;
  // (b) once the engine has converged, every stored availability has exactly one snapshot, with its window start;
  // (c) the deployments and home-bases services hold every employee's and transport resource's last version
  const lostWrites = await load.readBack();
  const { storedCount, live } = await load.checkSnapshots();
  const copiesBehind = await load.checkConsumers();

  // (d) a fresh engine replaying every stream into an empty database combines the same availabilities, and its
  // combinations score the same by the objective (DESIGN §6). Which of several equally good transport resources a
  // shift gets may differ: the objective's last term, fewest changes to existing combinations, depends on what
  // existed when each exact re-solve ran (services/matching/README.md), so those pairings are counted, not findings.
  const fresh = await freshEngineCombinations(suite, tenant, live.snapshots.length);
  const rm = suite.client(tenant);
  const liveNow = await converged(rm, storedCount, SETTLED_MS);
  const score = scorer(liveNow.snapshots, await all(rm.each.getPagedTransportResources(LARGEST_PAGES)));
  const [liveScore, freshScore] = [score(liveNow.combinations), score(fresh)];
  if (liveScore !== freshScore) {
    findings.push({
      rule: 'the combinations score as those of a fresh engine rebuilt from the streams',
      request: 'GET /resource-combination (live engine and fresh engine)',
      status: 200,
      excerpt: `live ${liveScore}, fresh ${freshScore}`,
    });
  }
  const keys = (combinations: Combination[], withResources: boolean) =>
    new Set(
      combinations.map(
        (item) => `${item.id}:${item.employee_id}${withResources ? `:${item.transport_resource_ids.toSorted().join(',')}` : ''}`,
      ),
    );
  const difference = (withResources: boolean) => {
    const [inLive, inFresh] = [keys(liveNow.combinations, withResources), keys(fresh, withResources)];
    return { onlyLive: [...inLive].filter((key) => !inFresh.has(key)), onlyFresh: [...inFresh].filter((key) => !inLive.has(key)) };
  };
  const combined = difference(false);
  const paired = difference(true);
  if (combined.onlyLive.length + combined.onlyFresh.length > 0) {
    findings.push({
      rule: 'the same availabilities are combined as by a fresh engine rebuilt from the streams',
      request: 'GET /resource-combination (live engine and fresh engine)',
      status: 200,
      excerpt:
        `${liveNow.combinations.length} live, ${fresh.length} fresh; ` +
        `only live: ${combined.onlyLive.slice(0, 3).join(' ')}; only fresh: ${combined.onlyFresh.slice(0, 3).join(' ')}`,
    });
  }

  return {
    name: 'crash-under-load',
    did:
      `${WRITERS} writers through the gateway (one request each every ${PAUSE_MS} ms or so) put employees (new and updates), ` +
      'availabilities (a day apart per employee; a create without an answer or with a 503 sent again with its ' +
      'Idempotency-Key) and transport resources (new and updates, costing 1 to 4; every third ' +
      'version at a home base, some employees linked to a transport resource), while each of ' +
      `${KILLED[size].join(', ')} in turn was killed with SIGKILL, started again ${DOWN_MS / 1000} s later and left ` +
      `${WRITE_MS[size] / 1000} s of writing. Then every acknowledged write was read back, every stored availability checked ` +
      "to be an acknowledged one, the matching engine's snapshots were " +
      "compared with the stored availabilities once its lists stayed the same for 3 s, the deployments and home-bases services' " +
      'copies with the last version of every employee and transport resource, and its combinations with those of a second ' +
      'matching process on an empty database replaying the streams from the start (by availability and by objective).',
    rows: [
      ...load.rows(`refused while down (killed service or gateway, until ${GRACE_MS / 1000} s after it was ready)`, lostWrites),
      ['time to recover per kill (restart → /readyz 200)', recoveries.join(', ')],
      ['availabilities stored, snapshots in the engine', `${storedCount}, ${live.snapshots.length}`],
      ["copies behind the last version (deployments' known resources, home-bases' references)", copiesBehind],
      [
        'combinations (live engine, fresh engine; availabilities combined by one only; pairings that differ)',
        `${liveNow.combinations.length}, ${fresh.length}; ${combined.onlyLive.length + combined.onlyFresh.length}; ` +
          `${paired.onlyLive.length}`,
      ],
      ['objective of the combinations (live engine; fresh engine)', `${liveScore}; ${freshScore}`],
    ],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * The objective's terms (DESIGN §6) of a set of combinations, as text to compare: mandatory shifts matched,
 * shifts matched, shifts on their employee's linked transport resource, total fixed cost (the only cost the
 * engine weighs). The last term, fewest changes, is left out: it depends on each engine's history.
 */
function scorer(snapshots: Snapshot[], transportResources: Item<'getPagedTransportResources'>[]): (combinations: Combination[]) => string {
  const shifts = new Map(snapshots.map((snapshot) => [snapshot.id, snapshot]));
  const costs = new Map(transportResources.map((resource) => [resource.business_id, resource.costs?.fixed ?? 0]));
  return (combinations) => {
    let [mandatory, linked, cost] = [0, 0, 0];
    for (const combination of combinations) {
      const shift = shifts.get(combination.id);
      const [resource] = combination.transport_resource_ids;
      if (shift?.mandatory === true) mandatory += 1;
      if (resource !== undefined && shift?.linked_transport_resource === resource) linked += 1;
      cost += costs.get(resource ?? '') ?? 0;
    }
    return `mandatory ${mandatory}, matched ${combinations.length}, linked ${linked}, cost ${cost}`;
  };
}

/** A second matching process on an empty database: its durable consumers are its own and replay the streams from the start. */
async function freshEngineCombinations(suite: SuiteStack, tenant: SuiteTenant, snapshots: number): Promise<Combination[]> {
  const database = uniqueName('rel_matching_fresh');
  const copy = await suite.stack.startCopy('matching', { MONGO_DB: database, MATCHING_REPLICA_ID: `fresh-${database}` });
  try {
    return (await converged(suite.client(tenant, { origin: copy.origin }), snapshots, SETTLED_MS)).combinations;
  } finally {
    await copy.stop();
    const mongo = new MongoClient(suite.servers.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    try {
      await mongo.db(database).dropDatabase();
    } finally {
      await mongo.close();
    }
  }
}
