// A bulk load while services crash (issue 29): an integrator imports employees and their availabilities
// with POST /import while following GET /changes, and each of the owners, the consumers and the gateway
// in turn is killed with SIGKILL and started again part way. The integrator does what the API document
// says: sends again, in a new import, every line answered 502, 503 or 504 or never answered (the import
// cut off with the gateway), the availabilities' creates with their Idempotency-Key, and resumes the
// feed from the last position it gave. Afterwards every line must have been applied once (each employee
// stored with exactly one availability, the one its acknowledged create named), and the feed must have
// shown each created resource's changes once each, versions in order, nothing lost or repeated.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Change, ImportLine, ImportOutcome } from '@rm/client';
import { inWaves } from '@rm/store';
import { bodies } from '../lib/fixtures.ts';
import { excerpt, StatusTally, type Finding, type ScenarioReport, type Size } from '../lib/report.ts';
import type { ServiceName, SuiteStack, TypedClient } from '../lib/suite-stack.ts';

const KILLED: Record<Size, ServiceName[]> = {
  full: ['employees', 'deployments', 'home-bases', 'webhooks', 'matching', 'gateway'],
  short: ['employees', 'gateway'],
};
const EMPLOYEES: Record<Size, number> = { full: 4_000, short: 1_500 };
const DOWN_MS = 1_000;
/** Answers a line may get while its owner or the gateway is away: it is sent again. */
const SEND_AGAIN = new Set([502, 503, 504]);
/** Imports of what is left, at most: each after the one before ended (answered, or cut off). */
const MAX_IMPORTS = 30;
const IMPORT_PAUSE_MS = 1_000;
/** How long the feed has to show every change once the lines are in, and then to show any repeat. */
const FEED_CATCH_UP_MS = 60_000;
const FEED_QUIET_MS = 3_000;
const FEED_TYPES = ['employee.*', 'availability.*'];

/** The import's lines, two per employee: its PUT, then its availability's POST (by the employee's path, so after the PUT). */
function linesOf(employees: number, prefix: string): ImportLine[] {
  return Array.from({ length: employees }, (_, index): ImportLine[] => {
    const id = `${prefix}-${index}`;
    return [
      { method: 'PUT', path: `/employee/${id}`, body: bodies.employee() },
      { method: 'POST', path: `/employee/${id}/availability`, body: bodies.availability((index % 14) * 24 + 6), headers: { 'idempotency-key': `${id}-first` } },
    ];
  }).flat();
}

export async function importUnderCrashes(suite: SuiteStack, size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const tenant = await suite.newTenant('import-crash');
  const rm = suite.client(tenant);
  const prefix = `imp-${Date.now().toString(36)}`;
  const lines = linesOf(EMPLOYEES[size], prefix);
  const findings: Finding[] = [];
  const tally = new StatusTally();

  // the feed, followed through every kill by the typed client (resumed from its last position)
  const following = new AbortController();
  const seen: Change[] = [];
  let connections = 0;
  let opened!: () => void;
  const firstOpen = new Promise<void>((resolve) => (opened = resolve));
  const feed = (async () => {
    const onConnection = (open: boolean) => {
      if (!open) return;
      connections += 1;
      opened();
    };
    for await (const change of rm.changes({ types: FEED_TYPES, signal: following.signal, onConnection })) seen.push(change);
  })().catch((error: unknown) => {
    findings.push({ rule: 'the change feed follows the import to its end', request: 'GET /changes', excerpt: String(error) });
  });
  await firstOpen;

  // each service in turn is killed once a share of the lines is answered, while the imports go on
  let answered = 0;
  let importing = true;
  const killed = KILLED[size];
  const recoveries: string[] = [];
  const killing = (async () => {
    for (const [turn, service] of killed.entries()) {
      const due = Math.floor(((turn + 1) * lines.length) / (killed.length + 2));
      while (answered < due && importing) await sleep(50);
      if (!importing) return;
      await suite.stack.kill(service);
      await sleep(DOWN_MS);
      const restarted = performance.now();
      await suite.stack.restart(service);
      recoveries.push(`${service} ${((performance.now() - restarted) / 1000).toFixed(1)} s`);
    }
  })();

  // the lines left to apply, by their index; an import answers them in input order
  const outcomes = new Map<number, ImportOutcome>();
  let pending = lines.map((_, index) => index);
  let imports = 0;
  /** Imports that ended before answering every line they were sent. */
  let cutOff = 0;
  while (pending.length > 0 && imports < MAX_IMPORTS) {
    imports += 1;
    const sent = pending;
    const again: number[] = [];
    let answeredHere = 0;
    try {
      for await (const outcome of rm.importLines(sent.map((index) => lines[index]!))) {
        const index = sent[outcome.line - 1]!;
        answeredHere += 1;
        answered += 1;
        tally.record(outcome.status);
        if (SEND_AGAIN.has(outcome.status) || leftForItsEmployee(outcome, index, outcomes)) again.push(index);
        else outcomes.set(index, outcome);
      }
    } catch {
      // cut off (the gateway went away), or refused whole while it starts again: what is unanswered goes again
    }
    if (answeredHere < sent.length) cutOff += 1;
    for (let unanswered = answeredHere; unanswered < sent.length; unanswered += 1) tally.record(undefined);
    pending = [...again, ...sent.slice(answeredHere)].sort((a, b) => a - b);
    if (pending.length > 0) await sleep(IMPORT_PAUSE_MS);
  }
  importing = false;
  await killing;
  if (recoveries.length < killed.length) {
    findings.push({ rule: 'every service named was killed during the import (else this scenario proved less)', request: 'POST /import', excerpt: `killed and restarted: ${recoveries.join(', ') || 'none'}` });
  }
  if (pending.length > 0) {
    findings.push({ rule: 'every line is applied in the end', request: 'POST /import', excerpt: `${pending.length} lines left after ${imports} imports` });
  }
  for (const [index, outcome] of outcomes) {
    if (outcome.status >= 300) {
      findings.push({ rule: 'a line answered for good is applied', request: `POST /import line ${JSON.stringify(lines[index])}`, status: outcome.status, excerpt: excerpt(JSON.stringify(outcome)) });
    }
  }

  // (a) every employee with exactly one availability, the one its acknowledged create named
  const stored = await storedAvailabilities(rm, EMPLOYEES[size], prefix);
  lines.forEach((line, index) => {
    if (line.method !== 'POST') return;
    const employee = line.path.split('/')[2]!;
    const ids = stored.get(employee) ?? [];
    const outcome = outcomes.get(index);
    const acknowledged = outcome !== undefined && 'location' in outcome ? outcome.location?.split('/').at(-1) : undefined;
    if (ids.length !== 1 || (acknowledged !== undefined && ids[0] !== acknowledged)) {
      findings.push({ rule: 'one availability per create, the one it acknowledged', request: `GET /employee/${employee}/availability`, status: 200, excerpt: `stored ${ids.join(', ') || 'none'}; acknowledged ${acknowledged ?? 'none'}` });
    }
  });

  // (b) the feed: every stored resource's creation, each change once, versions in order
  const expected = [...stored].flatMap(([employee, ids]) => [employee, ...ids.map((id) => `${employee}/${id}`)]);
  const notYetCreated = () => {
    const created = createdOnFeed(seen);
    return expected.filter((entity) => !created.has(entity));
  };
  const deadline = Date.now() + FEED_CATCH_UP_MS;
  while (Date.now() < deadline && notYetCreated().length > 0) await sleep(200);
  await sleep(FEED_QUIET_MS);
  following.abort();
  await feed;
  const missing = notYetCreated();
  if (missing.length > 0) {
    findings.push({ rule: 'the feed shows every change', request: 'GET /changes', excerpt: `${missing.length} resources never shown created, e.g. ${missing.slice(0, 3).join(' ')}` });
  }
  const repeated = repeatsAndDisorder(seen);
  if (repeated.length > 0) {
    findings.push({ rule: 'the feed shows each change once, in order per resource', request: 'GET /changes', excerpt: repeated.slice(0, 3).join('; ') });
  }
  // the scenario did what it says: the gateway's kill cut the feed and an import
  if (killed.includes('gateway') && (connections < 2 || cutOff === 0)) {
    findings.push({ rule: "the gateway's kill cut the feed and an import (else this scenario proved less)", request: 'GET /changes, POST /import', excerpt: `${connections} feed connections, ${cutOff} imports cut off` });
  }

  return {
    name: 'import-under-crashes',
    did:
      `POST /import of ${EMPLOYEES[size].toLocaleString('en')} employees and one availability each (its create with an Idempotency-Key), ` +
      `followed on GET /changes (${FEED_TYPES.join(', ')}) by the typed client; ${killed.join(', ')} in turn killed with SIGKILL ` +
      `once a share of the lines was answered, and started again ${DOWN_MS / 1000} s later. Lines answered 502, 503 or 504 or ` +
      'never answered were sent again in a new import, until every line had a final answer. Then every employee was read ' +
      'back with its availabilities, and the feed checked for every created resource, each change once, versions in order.',
    rows: [
      ['lines', lines.length],
      ['imports (the first, and those of what was left); cut off before their last answer', `${imports}; ${cutOff}`],
      ...tally.rows().map(([measure, value]): [string, string | number] => [`line answers, over every import: ${measure}`, value]),
      ['time to recover per kill (restart → /readyz 200)', recoveries.join(', ')],
      ['feed connections (opened again after the gateway restarted)', connections],
      ['changes on the feed; resources expected created', `${seen.length}; ${expected.length}`],
    ],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * An availability's create refused 404 because its employee's PUT, earlier in the same import, has no final
 * answer yet (503 while the employees service was away): it goes again with the PUT. A PUT refused for
 * good is a finding of its own.
 */
function leftForItsEmployee(outcome: ImportOutcome, index: number, outcomes: ReadonlyMap<number, ImportOutcome>): boolean {
  return outcome.status === 404 && index % 2 === 1 && !outcomes.has(index - 1);
}

/** Each employee of the scenario's with the ids of its stored availabilities. */
async function storedAvailabilities(rm: TypedClient, employees: number, prefix: string): Promise<Map<string, string[]>> {
  const ids = Array.from({ length: employees }, (_, index) => `${prefix}-${index}`);
  return new Map(
    await inWaves(ids, 16, async (employee) => [employee, (await rm.getEmployeeAvailabilities(employee)).data.map((availability) => availability.id)] as const),
  );
}

/** The resources the feed has shown created. */
function createdOnFeed(seen: readonly Change[]): Set<string> {
  return new Set(seen.filter(({ event }) => event.type.endsWith('.created')).map(({ event }) => event.entity_id));
}

/** Each change shown twice, or after a later version of its resource. */
function repeatsAndDisorder(seen: readonly Change[]): string[] {
  const last = new Map<string, number>();
  const problems: string[] = [];
  for (const { event } of seen) {
    const key = `${event.type.split('.')[0]}:${event.entity_id}`;
    const before = last.get(key) ?? 0;
    if (event.version <= before) problems.push(`${key} version ${event.version} after ${before}`);
    last.set(key, Math.max(before, event.version));
  }
  return problems;
}
