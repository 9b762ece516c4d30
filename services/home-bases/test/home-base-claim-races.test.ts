import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '@rm/runtime';
import { uniqueName } from '@rm/testkit';
import { homeBasesService } from '../src/app.js';
import type { HomeBasesHarness } from './helpers.js';
import { homeBaseClient, startReferenceWorld, type HomeBaseClient, type InUse, type ReferenceWorld } from './reference-helpers.js';

// A claim on a home base racing its delete: of the two, at least one sees the other. Either the
// delete goes through and every claim is refused, or the delete is refused; never a claim granted on a
// home base that is then deleted. Within one instance the two take turns on a lock; across instances
// (replicas over one database) only their marks in the database keep them apart.
const tenant = uniqueName('tenant');
let world: ReferenceWorld;
/** A second instance of the service over the same database, as a second replica. */
let replica: HomeBasesHarness['service'];
let client: HomeBaseClient;
let replicaClient: HomeBaseClient;

beforeAll(async () => {
  world = await startReferenceWorld();
  replica = await startService(homeBasesService, { env: world.harness.env.variables, listen: false });
  const headers = await world.harness.as(tenant);
  client = homeBaseClient(world.harness, headers);
  replicaClient = homeBaseClient({ ...world.harness, app: replica.app }, headers);
});

afterAll(async () => {
  await replica?.stop();
  await world?.close();
});

const CLAIMS = 20;
const ROUNDS = 8;
/** Longest pause before a call of a round starts. */
const JITTER_MS = 30;
/** The delete starts before the claims in the first round, after most of them in the last, and between them in the others. */
const deleteAfter = (round: number) => (round / (ROUNDS - 1)) * JITTER_MS;

interface Outcome {
  status: number;
  /** When the answer came, in ms since the round began. */
  endedAt: number;
  body: string;
}

/**
 * Creates a home base, then sends CLAIMS claims on it (each by an employee of its own, on the
 * instances `claimsOn` in turn) and its delete on `deleteOn` at about the same time; returns every answer.
 */
async function race(claimsOn: HomeBaseClient[], deleteOn: HomeBaseClient, deleteAfterMs: number) {
  const home = `hb-${randomUUID()}`;
  await client.create(home);
  const began = performance.now();
  const done = ({ statusCode, body }: { statusCode: number; body: string }): Outcome => ({
    status: statusCode,
    endedAt: Math.round(performance.now() - began),
    body,
  });
  const references = [{ field: 'home_base.business_id', business_id: home }];
  const calls = Array.from({ length: CLAIMS }, (_, index) => () => {
    const on = claimsOn[index % claimsOn.length]!;
    return on.claim({ entity: 'employee', id: `emp-${index}-${randomUUID()}` }, references).then(done);
  });
  // the claims start at random within JITTER_MS, the delete at a time of the caller's choosing
  const [removal, ...outcomes] = await Promise.all([
    sleep(deleteAfterMs).then(() => deleteOn.inject('DELETE', `/home-base/${home}`).then(done)),
    ...calls.map(async (call) => sleep(Math.random() * JITTER_MS).then(call)),
  ]);
  return { home, claims: outcomes, removal };
}

/** What holds whatever the interleaving, once every call of the round has answered. */
async function checkRound({ home, claims, removal }: Awaited<ReturnType<typeof race>>): Promise<void> {
  const summary = JSON.stringify({ claims: claims.map(({ status, endedAt }) => [status, endedAt]), removal });
  const granted = claims.filter(({ status }) => status === 201);
  for (const { status, body } of claims.filter((claim) => claim.status !== 201)) {
    expect(status, summary).toBe(400);
    expect(JSON.parse(body), summary).toMatchObject({
      violations: [{ field: 'home_base.business_id', message: `home base '${home}' does not exist` }],
    });
  }
  expect([204, 409], summary).toContain(removal.status);
  const read = await client.inject('GET', `/home-base/${home}`);
  if (removal.status === 204) {
    // every claim that ended after the delete was refused; and as no claim is dropped here, one granted
    // before it would have stopped the delete: none was granted at all
    expect(claims.filter(({ endedAt, status }) => endedAt > removal.endedAt && status !== 400), summary).toEqual([]);
    expect(granted, summary).toEqual([]);
    expect(read.statusCode, summary).toBe(404);
  } else {
    // refused for claims only (no event names it): every referrer listed is pending
    const { referrers, referrers_total } = JSON.parse(removal.body) as InUse;
    expect(referrers_total, summary).toBeGreaterThan(0);
    expect(referrers.every(({ entity, pending }) => entity === 'employee' && pending === true), summary).toBe(true);
  }
  // every granted claim names a home base that is there
  if (granted.length > 0) expect(read.statusCode, summary).toBe(200);
  for (const { body } of granted) expect((await client.drop((JSON.parse(body) as { claim_id: string }).claim_id)).statusCode).toBe(204);
}

describe('claims racing the delete of their home base', () => {
  it(`on one instance: ${CLAIMS} claims and a delete at once, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) await checkRound(await race([client], client, deleteAfter(round)));
  });

  it(`across two instances over one database: claims on both, the delete on either, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      await checkRound(await race([replicaClient, client], round % 2 === 0 ? client : replicaClient, deleteAfter(round)));
    }
  });
});

// A deletion mark used to be one document per home base, owned by no delete: of two deletes of the same
// home base on two instances, the one that ended first unmarked the mark of the one still under way,
// and a claim then granted saw neither mark nor a missing home base; the second mark's upsert could
// also hit a duplicate key (a 500). Each delete now has a mark of its own.
describe('deletes of the same home base on two instances at once', () => {
  it('leave the mark of the delete still under way: a claim meanwhile is refused', async () => {
    const home = `hb-${randomUUID()}`;
    await client.create(home);
    // a delete under way on another instance: marked, reading the index, about to remove
    const marks = world.harness.service.store.db.collection<{ _id: string; home_base: string; at: Date }>('home_base_deletions');
    await marks.insertOne({ _id: `${tenant}|${home}|elsewhere`, home_base: `${tenant}|${home}`, at: new Date() });
    const reference = [{ field: 'home_base.business_id', business_id: home }];
    expect((await client.claim({ entity: 'employee', id: 'e-before' }, reference)).statusCode).toBe(400);
    // a delete here that is refused (412) ends, and unmarks
    const refused = await client.inject('DELETE', `/home-base/${home}`, undefined, { 'if-match': 'W/"99"' });
    expect(refused.statusCode).toBe(412);
    const claim = await client.claim({ entity: 'employee', id: 'e-after' }, reference);
    await marks.deleteOne({ _id: `${tenant}|${home}|elsewhere` });
    // the other delete goes on and removes the home base: this claim must have been refused
    expect(claim.statusCode, claim.body).toBe(400);
  });

  it('answer 204 and 404 or 409, never a 500 (the second mark is an upsert that can hit a duplicate key)', async () => {
    const answers: number[][] = [];
    for (let round = 0; round < 10; round += 1) {
      const home = `hb-${randomUUID()}`;
      await client.create(home);
      const both = await Promise.all([client, replicaClient].map((on) => on.inject('DELETE', `/home-base/${home}`)));
      answers.push(both.map(({ statusCode }) => statusCode));
    }
    // FerretDB v1's conditional updates are not atomic across connections: both may say 204 there
    expect(answers.flat().filter((status) => ![204, 404, 409].includes(status)), JSON.stringify(answers)).toEqual([]);
  });
});
