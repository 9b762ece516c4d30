// Races through the gateway, each started at once (Promise.all over one pooled agent) and repeated:
// overlapping availability creates, concurrent If-Match updates, plain concurrent upserts, overlapping
// deployments. Each must end exactly as the spec and DESIGN §3 and §8 say, in the answers and in what
// is stored afterwards.
import { apiClient, eventually, idFromLocation, talliedClient, type ApiClient } from '../lib/api.ts';
import { bodies } from '../lib/fixtures.ts';
import type { RawResponse } from '../lib/http.ts';
import { parseJson } from '../lib/http.ts';
import { excerpt, StatusTally, type Finding, type ScenarioReport, type Size } from '../lib/report.ts';
import type { SuiteStack } from '../lib/suite-stack.ts';

const ROUNDS: Record<Size, number> = { full: 5, short: 1 };
const OVERLAPPING_CREATES = 20;
const CONCURRENT_UPDATES = 10;
const OVERLAPPING_DEPLOYMENTS = 10;

interface Race {
  name: string;
  expected: string;
  /** Runs one round; returns what diverged from the expected outcome (nothing when exact). */
  run(api: ApiClient, round: string): Promise<string[]>;
}

export async function races(suite: SuiteStack, size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const tenant = await suite.newTenant('races');
  const tally = new StatusTally();
  const api = talliedClient(apiClient(suite, tenant), tally);
  const findings: Finding[] = [];
  const rows: [string, string | number][] = [];
  let lostWrites = 0;
  const countLost = (divergences: string[]) => {
    lostWrites += divergences.filter((divergence) => divergence.startsWith('lost write')).length;
    return divergences;
  };

  for (const race of RACES) {
    let exact = 0;
    for (let round = 0; round < ROUNDS[size]; round += 1) {
      const divergences = countLost(await race.run(api, `r${round}-${Math.random().toString(36).slice(2, 8)}`));
      if (divergences.length === 0) exact += 1;
      findings.push(...divergences.map((divergence) => ({ rule: `race ${race.name}`, request: race.expected, excerpt: divergence })));
    }
    rows.push([`${race.name} (${race.expected})`, `${exact} of ${ROUNDS[size]} rounds exact`]);
  }

  return {
    name: 'races',
    did:
      `Through the gateway, ${ROUNDS[size]} round(s) of each race, every request of a race sent at once: ` +
      `${OVERLAPPING_CREATES} overlapping availability creates for one employee; ${CONCURRENT_UPDATES} PUTs with the same If-Match on an ` +
      `employee, an availability, a home base and a transport resource; ${CONCURRENT_UPDATES} PUTs without If-Match on one employee; ` +
      `${OVERLAPPING_DEPLOYMENTS} overlapping deployments of one employee (different transport resources) and of one transport resource ` +
      '(different employees). Each answer set and what is stored afterwards are compared with the spec\'s outcome.',
    rows: [...tally.rows(), ...rows, ['lost writes', lostWrites]],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

const statuses = (responses: RawResponse[]) => responses.map((response) => response.status).sort((a, b) => a - b);
const count = (responses: RawResponse[], status: number) => responses.filter((response) => response.status === status).length;

/** `exactly one `winner` and the rest `loser``, else a description of what came. */
function oneWins(round: string, responses: RawResponse[], winner: number, loser: number): string[] {
  if (count(responses, winner) === 1 && count(responses, loser) === responses.length - 1) return [];
  const others = responses.find((response) => response.status !== winner && response.status !== loser);
  const example = others === undefined ? '' : ` (${others.status}: ${excerpt(others.body, 160)})`;
  return [`${round}: statuses ${statuses(responses).join(',')}${example}`];
}

async function ensure(api: ApiClient, path: string, body: unknown): Promise<void> {
  const response = await api.call('PUT', path, body);
  if (response.status >= 300) throw new Error(`PUT ${path}: ${response.status} ${response.body}`);
}

async function versionOf(api: ApiClient, path: string): Promise<{ version: number | undefined; body: Record<string, unknown> }> {
  const response = await api.call('GET', path);
  const body = (parseJson(response.body) ?? {}) as Record<string, unknown>;
  return { version: typeof body.version === 'number' ? body.version : undefined, body };
}

/** Ten PUTs with If-Match W/"1" on a resource at version 1: one 200, nine 412, version 2 with the winner's body. */
/** A resource at version 1, the body each writer sends, and which writer a stored body came from. */
interface Contested {
  path: string;
  body(writer: number): unknown;
  writer(body: Record<string, unknown>): number | undefined;
}

function ifMatchRace(kind: string, setUp: (api: ApiClient, round: string) => Promise<Contested>): Race {
  return {
    name: `If-Match updates of one ${kind}`,
    expected: `${CONCURRENT_UPDATES} × PUT If-Match W/"1": one 200, ${CONCURRENT_UPDATES - 1} × 412, version 2 holding the winner's body`,
    async run(api, round) {
      const { path, body, writer } = await setUp(api, round);
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT_UPDATES }, (_, index) => api.call('PUT', path, body(index), { 'if-match': 'W/"1"' })),
      );
      const divergences = oneWins(round, responses, 200, 412);
      const stored = await versionOf(api, path);
      const winner = responses.findIndex((response) => response.status === 200);
      if (stored.version !== 2) divergences.push(`${round}: stored version ${stored.version}, expected 2`);
      if (winner >= 0 && writer(stored.body) !== winner) {
        divergences.push(`lost write ${round}: writer ${winner} won, ${writer(stored.body)} is stored`);
      }
      return divergences;
    },
  };
}

const writerIn = (text: unknown) => Number(String(text).replace('writer-', ''));
const firstNameWriter = (body: Record<string, unknown>) => writerIn((body.name as { first_name?: string } | undefined)?.first_name);

/** The length of a list answer: an array, or the array under its context name. */
function listLength(body: unknown): number {
  const list = Array.isArray(body) ? body : Object.values((body ?? {}) as object).find(Array.isArray);
  return Array.isArray(list) ? list.length : -1;
}

const RACES: Race[] = [
  {
    name: 'overlapping availability creates',
    expected: `${OVERLAPPING_CREATES} × POST: one 201, ${OVERLAPPING_CREATES - 1} × 409 naming it, one stored`,
    async run(api, round) {
      const employee = `race-${round}`;
      await ensure(api, `/employee/${employee}`, bodies.employee());
      const responses = await Promise.all(
        Array.from({ length: OVERLAPPING_CREATES }, (_, index) =>
          api.call('POST', `/employee/${employee}/availability`, bodies.availability(index % 4, 8)),
        ),
      );
      const divergences = oneWins(round, responses, 201, 409);
      const winner = responses.find((response) => response.status === 201);
      const winnerId = winner === undefined ? undefined : idFromLocation(winner);
      const unnamed = responses.filter(({ status, body }) => status === 409 && winnerId !== undefined && !body.includes(winnerId));
      if (unnamed.length > 0) {
        divergences.push(`${round}: ${unnamed.length} × 409 without the winner's id: ${excerpt(unnamed[0]!.body, 160)}`);
      }
      const stored = parseJson((await api.call('GET', `/employee/${employee}/availability`)).body);
      if (listLength(stored) !== count(responses, 201)) {
        divergences.push(`lost write ${round}: ${count(responses, 201)} created, ${listLength(stored)} stored`);
      }
      return divergences;
    },
  },
  ifMatchRace('employee', async (api, round) => {
    const path = `/employee/race-if-${round}`;
    await ensure(api, path, bodies.employee('first'));
    return { path, body: (writer) => bodies.employee(`writer-${writer}`), writer: firstNameWriter };
  }),
  ifMatchRace('availability', async (api, round) => {
    const employee = `race-if-availability-${round}`;
    await ensure(api, `/employee/${employee}`, bodies.employee());
    const created = await api.call('POST', `/employee/${employee}/availability`, bodies.availability(0));
    // each writer moves it by its own number of minutes past the hour
    return {
      path: `/employee/${employee}/availability/${idFromLocation(created)}`,
      body: (writer) => ({ ...bodies.availability(0), earliest_start: `2026-01-05T00:${String(writer + 1).padStart(2, '0')}:00Z` }),
      writer: (body) => Number(String(body.earliest_start).slice(14, 16)) - 1,
    };
  }),
  ifMatchRace('home base', async (api, round) => {
    const path = `/home-base/race-${round}`;
    await ensure(api, path, bodies.homeBase('first'));
    return { path, body: (writer) => bodies.homeBase(`writer-${writer}`), writer: (body) => writerIn(body.name) };
  }),
  ifMatchRace('transport resource', async (api, round) => {
    const path = `/transport-resource/race-${round}`;
    await ensure(api, path, bodies.transportResource('first'));
    return { path, body: (writer) => bodies.transportResource(`writer-${writer}`), writer: (body) => writerIn(body.reference) };
  }),
  {
    name: 'upserts of one employee without If-Match',
    expected: `${CONCURRENT_UPDATES} × PUT: all 2xx with versions 1 to ${CONCURRENT_UPDATES}, each once; the last version stored`,
    async run(api, round) {
      const path = `/employee/race-upsert-${round}`;
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT_UPDATES }, (_, index) => api.call('PUT', path, bodies.employee(`writer-${index}`))),
      );
      const divergences: string[] = [];
      if (responses.some((response) => response.status >= 300)) divergences.push(`${round}: statuses ${statuses(responses).join(',')}`);
      const versions = responses.map((response) => response.headers.etag).sort();
      const expected = Array.from({ length: CONCURRENT_UPDATES }, (_, index) => `W/"${index + 1}"`).sort();
      if (JSON.stringify(versions) !== JSON.stringify(expected)) divergences.push(`lost write ${round}: ETags ${versions.join(' ')}`);
      const stored = await versionOf(api, path);
      const last = responses.findIndex((response) => response.headers.etag === `W/"${CONCURRENT_UPDATES}"`);
      if (stored.version !== CONCURRENT_UPDATES || firstNameWriter(stored.body) !== last) {
        const storedWriter = firstNameWriter(stored.body);
        divergences.push(`lost write ${round}: stored version ${stored.version} by writer ${storedWriter}, the last was ${last}`);
      }
      return divergences;
    },
  },
  deploymentRace('one employee, different transport resources', (round, index) => ({
    employee: `dep-emp-${round}`,
    transportResource: `dep-tr-${round}-${index}`,
  })),
  deploymentRace('one transport resource, different employees', (round, index) => ({
    employee: `dep-emp-${round}-${index}`,
    transportResource: `dep-tr-${round}`,
  })),
];

const deploymentOf = (pair: { employee: string; transportResource: string }, startHour: number) =>
  bodies.deployment(pair.employee, [pair.transportResource], startHour);

/** Ten overlapping external deployments that share a resource: one 201, nine 409, one stored. */
function deploymentRace(shares: string, pick: (round: string, index: number) => { employee: string; transportResource: string }): Race {
  return {
    name: `overlapping deployments of ${shares}`,
    expected: `${OVERLAPPING_DEPLOYMENTS} × PUT /deployment: one 201, ${OVERLAPPING_DEPLOYMENTS - 1} × 409, one stored`,
    async run(api, round) {
      const pairs = Array.from({ length: OVERLAPPING_DEPLOYMENTS }, (_, index) => pick(round, index));
      for (const employee of new Set(pairs.map((pair) => pair.employee))) await ensure(api, `/employee/${employee}`, bodies.employee());
      for (const resource of new Set(pairs.map((pair) => pair.transportResource))) {
        await ensure(api, `/transport-resource/${resource}`, bodies.transportResource());
      }
      // the deployments service learns employees and transport resources from their events
      const known = await eventually(async () => {
        const probes = await Promise.all(
          pairs.map((pair, index) =>
            // far in the past, none overlapping
            api.call('PUT', `/deployment/probe-${round}-${index}`, deploymentOf(pair, -1_000 * (index + 1))),
          ),
        );
        return probes.every((probe) => probe.status < 300);
      });
      if (!known) return [`${round}: the deployments service did not learn the employees and transport resources within 30 s`];
      await Promise.all(pairs.map((_, index) => api.call('DELETE', `/deployment/probe-${round}-${index}`)));
      const ids = pairs.map((_, index) => `dep-${round}-${index}`);
      const responses = await Promise.all(
        pairs.map((pair, index) => api.call('PUT', `/deployment/${ids[index]}`, deploymentOf(pair, index % 3))),
      );
      const divergences = oneWins(round, responses, 201, 409);
      const stored = await Promise.all(ids.map((id) => api.call('GET', `/deployment/${id}`)));
      if (count(stored, 200) !== count(responses, 201)) {
        divergences.push(`lost write ${round}: ${count(responses, 201)} created, ${count(stored, 200)} stored`);
      }
      return divergences;
    },
  };
}
