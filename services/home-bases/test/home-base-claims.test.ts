import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { INTERNAL_API_KEY_HEADER, OPENAPI_PATHS_URL } from '@rm/service-kit';
import { uniqueName } from '@rm/testkit';
import { fresh } from '@rm/testkit/suites/home-base-references';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { BASE, json } from './helpers.js';
import { availabilityEvent, employeeEvent, useReferenceWorld, type InUse, type ListedReferrer } from './reference-helpers.js';

// Claims: what another service's write that names home bases makes here before it writes, and
// settles with the version it wrote (or drops); the home bases stay until that version's event arrives.
const [tenant, other] = [uniqueName('tenant'), uniqueName('other')];
const { world, clients: [client, otherClient] } = useReferenceWorld(tenant, other);

const CLAIMS = '/internal/home-base-claims';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Claims the home bases for the referrer, expecting a 201; returns the claim id. */
async function claimed(referrer: { entity: string; id: string }, ...ids: string[]): Promise<string> {
  const response = await client.claim(
    referrer,
    ids.map((business_id) => ({ field: 'home_base.business_id', business_id })),
  );
  expect(response.statusCode, response.body).toBe(201);
  return json<{ claim_id: string }>(response).claim_id;
}

/** The single DELETE's answer (the home base created again if it went): its status and listed referrers. */
async function deleteOf(id: string): Promise<{ status: number; referrers?: ListedReferrer[]; total?: number }> {
  const response = await client.tryDelete(id);
  if (response.statusCode !== 409) return { status: response.statusCode };
  const { referrers, referrers_total } = json<InUse>(response);
  return { status: 409, referrers, total: referrers_total };
}

const employee = (id: string) => ({ entity: 'employee', id });
const pending = (id: string) => ({ entity: 'employee', id, pending: true });

/** A new home base, claimed by a new employee. */
async function employeeClaim(): Promise<{ home: string; emp: string; claim: string }> {
  const [home] = await client.createHomeBases(1);
  const emp = fresh('emp');
  return { home: home!, emp, claim: await claimed(employee(emp), home!) };
}

describe('POST /internal/home-base-claims', () => {
  it('answers 201 with a claim id when every home base named exists, also when one is named twice', async () => {
    const [first, second] = await client.createHomeBases(2);
    const response = await client.claim(employee(fresh('emp')), [
      { field: 'home_base.business_id', business_id: first! },
      { field: 'availabilities[0].start_location.home_base.business_id', business_id: second! },
      { field: 'availabilities[1].home_base_id', business_id: first! },
    ]);
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ claim_id: expect.stringMatching(UUID) });
  });

  it('answers 400 naming exactly the references to home bases that do not exist, by the fields sent, and claims none', async () => {
    const [known] = await client.createHomeBases(1);
    const [missing, gone] = [fresh('missing'), fresh('gone')];
    await client.create(gone);
    expect((await client.inject('DELETE', `/home-base/${gone}`)).statusCode).toBe(204);

    const response = await client.claim(employee(fresh('emp')), [
      { field: 'home_base.business_id', business_id: known! },
      { field: 'shifts[0].start_location.home_base.business_id', business_id: missing },
      { field: 'shifts[1].end_location.home_base.business_id', business_id: known! },
      { field: 'shifts[2].home_base_id', business_id: gone },
      { field: 'shifts[3].start_location.home_base.business_id', business_id: missing },
    ]);
    const refused = expectProblemWithStatus(response, 400);
    expect(refused).toMatchObject({ status: 400 });
    expect(refused.violations).toEqual([
      { field: 'shifts[0].start_location.home_base.business_id', message: `home base '${missing}' does not exist` },
      { field: 'shifts[2].home_base_id', message: `home base '${gone}' does not exist` },
      { field: 'shifts[3].start_location.home_base.business_id', message: `home base '${missing}' does not exist` },
    ]);
    // the refused claim holds nothing: the home base that does exist can go
    expect(await deleteOf(known!)).toEqual({ status: 204 });
  });

  it("takes another tenant's home base for one that does not exist", async () => {
    const [theirs] = await otherClient.createHomeBases(1);
    const response = await client.claim(employee(fresh('emp')), [{ field: 'home_base.business_id', business_id: theirs! }]);
    expect(response.statusCode).toBe(400);
    expect(json<{ violations: unknown[] }>(response).violations).toEqual([
      { field: 'home_base.business_id', message: `home base '${theirs}' does not exist` },
    ]);
    expect(await otherClient.tryDelete(theirs!)).toMatchObject({ statusCode: 204 });
  });

  it('refuses a home base whose delete is under way (its deletion mark), believing a mark for a minute only', async () => {
    const [home, stale] = await client.createHomeBases(2);
    // what a delete in progress, and one that crashed over a minute ago, leave in the service's database
    const marks = world.harness.service.store.db.collection<{ _id: string; home_base: string; at: Date }>('home_base_deletions');
    await marks.insertMany([
      { _id: `${tenant}|${home}|under-way`, home_base: `${tenant}|${home}`, at: new Date() },
      { _id: `${tenant}|${stale}|crashed`, home_base: `${tenant}|${stale}`, at: new Date(Date.now() - 61_000) },
    ]);
    try {
      const refused = await client.claim(employee(fresh('emp')), [{ field: 'home_base.business_id', business_id: home! }]);
      expect(refused.statusCode).toBe(400);
      expect(json<{ violations: unknown[] }>(refused).violations).toEqual([
        { field: 'home_base.business_id', message: `home base '${home}' does not exist` },
      ]);
      await claimed(employee(fresh('emp')), stale!);
    } finally {
      await marks.deleteMany({ _id: { $in: [`${tenant}|${home}|under-way`, `${tenant}|${stale}|crashed`] } });
    }
    expect(await deleteOf(home!)).toEqual({ status: 204 });
  });

  it('blocks the delete of every home base it names at once, listing the referrer as pending', async () => {
    const [first, second, untouched] = await client.createHomeBases(3);
    const emp = fresh('emp');
    await claimed(employee(emp), first!, second!);
    for (const id of [first!, second!]) expect(await deleteOf(id)).toEqual({ status: 409, referrers: [pending(emp)], total: 1 });
    expect((await client.inject('GET', `/home-base/${first}`)).statusCode).toBe(200);
    expect(await deleteOf(untouched!)).toEqual({ status: 204 });
  });

  it('lists every claim, one per claim, with the referrers from events, by entity and id', async () => {
    const [home] = await client.createHomeBases(1);
    const [a, b] = [fresh('emp-a'), fresh('emp-b')];
    await claimed(employee(b), home!);
    await claimed(employee(a), home!);
    await claimed({ entity: 'availability', id: `${a}/${randomUUID()}` }, home!);
    const listed = await deleteOf(home!);
    expect(listed.total).toBe(3);
    const byEmployee = listed.referrers?.map(({ entity, id }) => `${entity} ${id.split('/')[0]}`);
    expect(byEmployee).toEqual([`availability ${a}`, `employee ${a}`, `employee ${b}`]);
    expect(listed.referrers?.every((referrer) => referrer.pending === true)).toBe(true);
  });
});

describe('DELETE /internal/home-base-claims/{claim_id}', () => {
  it('drops the claim: the home base can go again; a second drop and one of an unknown claim are 204 too', async () => {
    const [home] = await client.createHomeBases(1);
    const claim = await claimed(employee(fresh('emp')), home!);
    expect((await deleteOf(home!)).status).toBe(409);
    const dropped = await client.drop(claim);
    expect(dropped.statusCode).toBe(204);
    expect(dropped.body).toBe('');
    expect((await client.drop(claim)).statusCode).toBe(204);
    expect((await client.drop(randomUUID())).statusCode).toBe(204);
    expect((await client.inject('DELETE', `/home-base/${home}`)).statusCode).toBe(204);
  });

  it('drops only its own claim: the other claims on the home base still block', async () => {
    const [home] = await client.createHomeBases(1);
    const [first, second] = [fresh('emp'), fresh('emp')];
    const claim = await claimed(employee(first), home!);
    await claimed(employee(second), home!);
    expect((await client.drop(claim)).statusCode).toBe(204);
    expect(await deleteOf(home!)).toEqual({ status: 409, referrers: [pending(second)], total: 1 });
  });

  it("neither drops nor settles another tenant's claim", async () => {
    const { home, emp, claim } = await employeeClaim();
    expect((await otherClient.drop(claim)).statusCode).toBe(204);
    expect((await otherClient.settle(claim, 1)).statusCode).toBe(404);
    // an event of the other tenant's referrer of the same id does not end it either
    await world.publish(employeeEvent(other, emp, 5));
    await world.drain(tenant);
    expect(await deleteOf(home)).toEqual({ status: 409, referrers: [pending(emp)], total: 1 });
  });
});

describe('PUT /internal/home-base-claims/{claim_id}', () => {
  it('answers 404 problem+json to the settlement of a claim that does not exist, or no longer does', async () => {
    expectProblemWithStatus(await client.settle(randomUUID(), 1), 404);
    const [home] = await client.createHomeBases(1);
    const claim = await claimed(employee(fresh('emp')), home!);
    await client.drop(claim);
    expect((await client.settle(claim, 1)).statusCode).toBe(404);
  });

  it('holds the home base until the settled version arrives; then the referrer does, until it names it no more', async () => {
    const { home, emp, claim } = await employeeClaim();
    const settled = await client.settle(claim, 3);
    expect(settled.statusCode).toBe(204);
    expect(settled.body).toBe('');
    expect(await deleteOf(home)).toEqual({ status: 409, referrers: [pending(emp)], total: 1 });

    // an older version changes nothing of the claim, even one that names nothing (a second one: a
    // first that names nothing is ignored before the index sees it)
    await world.publish(employeeEvent(tenant, emp, 2));
    await world.applied(tenant, 'employee', emp, 2);
    expect(await deleteOf(home)).toEqual({ status: 409, referrers: [pending(emp)], total: 1 });

    // the settled version: the claim goes, the employee's own row holds the home base now
    await world.publish(employeeEvent(tenant, emp, 3, home));
    expect((await client.blocked(home, ({ referrers }) => referrers.every((referrer) => referrer.pending !== true))).referrers).toEqual([
      employee(emp),
    ]);
    expect(await deleteOf(home)).toEqual({ status: 409, referrers: [employee(emp)], total: 1 });

    await world.publish(employeeEvent(tenant, emp, 4));
    await client.free(home);
  });

  it('lists a settled claim beside the row of an earlier version, and ends with the deleted event of a later one', async () => {
    const [home] = await client.createHomeBases(1);
    const emp = fresh('emp');
    await world.publish(employeeEvent(tenant, emp, 1, home, { action: 'created' }));
    await world.applied(tenant, 'employee', emp, 1);
    const claim = await claimed(employee(emp), home!);
    expect((await client.settle(claim, 3)).statusCode).toBe(204);
    const both = await deleteOf(home!);
    expect(both.total).toBe(2);
    expect(both.referrers).toEqual(expect.arrayContaining([employee(emp), pending(emp)]));

    // version 3 is a delete: it names nothing, and it is the settled version
    await world.publish(employeeEvent(tenant, emp, 3, home, { action: 'deleted' }));
    await client.free(home!);
  });

  it('ends the claim at once when the event of that version was applied before the settlement', async () => {
    const { home, emp, claim } = await employeeClaim();
    await world.publish(employeeEvent(tenant, emp, 1, home, { action: 'created' }));
    await world.applied(tenant, 'employee', emp, 1);
    expect((await deleteOf(home)).total).toBe(2);
    expect((await client.settle(claim, 1)).statusCode).toBe(204);
    expect(await deleteOf(home)).toEqual({ status: 409, referrers: [employee(emp)], total: 1 });
    await world.publish(employeeEvent(tenant, emp, 2, home, { action: 'deleted' }));
    await client.free(home);
  });

  it('ends the claim at once when a later version that names no home base was applied before the settlement', async () => {
    const { home, emp, claim } = await employeeClaim();
    await world.publish(employeeEvent(tenant, emp, 1, home, { action: 'created' }));
    await world.publish(employeeEvent(tenant, emp, 2));
    await world.applied(tenant, 'employee', emp, 2);
    expect((await client.settle(claim, 1)).statusCode).toBe(204);
    expect(await deleteOf(home)).toEqual({ status: 204 });
  });

  // A referrer whose applied events named no home base used to have no row: the settlement could not
  // see that a later version was applied, and the claim stayed until the referrer's next event, if any.
  it('ends the claim at settlement when a later version naming no home base overtook the claimed one', async () => {
    const { home, emp, claim } = await employeeClaim();
    // version 2 (no home base) arrives first; version 1, the claimed write's, comes late and is skipped
    await world.publish(employeeEvent(tenant, emp, 2));
    await world.applied(tenant, 'employee', emp, 2);
    await world.publish(employeeEvent(tenant, emp, 1, home, { action: 'created' }));
    await world.drain(tenant);
    expect((await client.settle(claim, 1)).statusCode).toBe(204);
    // the referrer is past version 1 and names no home base: nothing holds the home base any more
    expect(await deleteOf(home)).toEqual({ status: 204 });
  });

  it('ends a settled availability claim with the event of its entity id, whose row then holds the home base', async () => {
    const [home, other] = await client.createHomeBases(2);
    const [emp, availability] = [fresh('emp'), randomUUID()];
    const referrer = { entity: 'availability', id: `${emp}/${availability}` };
    const claim = await claimed(referrer, home!, other!);
    expect((await client.settle(claim, 1)).statusCode).toBe(204);
    // an event of the employee of the same id is another referrer's
    await world.publish(employeeEvent(tenant, emp, 7));
    await world.publish(availabilityEvent(tenant, emp, availability, 1, home));
    expect((await client.blocked(home!, ({ referrers }) => referrers.every((one) => one.pending !== true))).referrers).toEqual([referrer]);
    // the claim named the other home base too; the availability's event does not: it can go
    await client.free(other!);
  });

  it("keeps a claim whatever other referrers' events say", async () => {
    const [home] = await client.createHomeBases(1);
    const [emp, neighbour] = [fresh('emp'), fresh('emp')];
    const claim = await claimed(employee(emp), home!);
    expect((await client.settle(claim, 1)).statusCode).toBe(204);
    await world.publish(employeeEvent(tenant, neighbour, 9));
    await world.publish(availabilityEvent(tenant, emp, randomUUID(), 9));
    await world.drain(tenant);
    expect(await deleteOf(home!)).toEqual({ status: 409, referrers: [pending(emp)], total: 1 });
  });
});

describe('the claim routes', () => {
  it('refuse malformed bodies and ids with 400 and violations', async () => {
    const [home] = await client.createHomeBases(1);
    const references = [{ field: 'home_base.business_id', business_id: home }];
    const bodies: unknown[] = [
      { references },
      { referrer: employee('e1') },
      { referrer: employee('e1'), references: [] },
      { referrer: { entity: 'Employee!', id: 'e1' }, references },
      { referrer: { entity: 'employee', id: '' }, references },
      { referrer: employee('e1'), references: [{ field: 'home_base.business_id', business_id: 'bad id!' }] },
      { referrer: employee('e1'), references: [{ field: 'home_base.business_id' }] },
      { referrer: employee('e1'), references, extra: true },
      [],
    ];
    for (const body of bodies) {
      const response = await client.inject('POST', CLAIMS, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(json<{ violations: unknown[] }>(response).violations.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    const claim = await claimed(employee('e1'), home!);
    for (const body of [{}, { version: 0 }, { version: 1.5 }, { version: '1' }, { version: 1, extra: 1 }]) {
      const response = await client.inject('PUT', `${CLAIMS}/${claim}`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
    for (const method of ['PUT', 'DELETE'] as const) {
      const response = await client.inject(method, `${CLAIMS}/not-a-uuid`, method === 'PUT' ? { version: 1 } : undefined);
      expect(response.statusCode, method).toBe(400);
      expect(json<{ violations: { field: string }[] }>(response).violations.map(({ field }) => field), method).toContain('claim_id');
    }
    // none of that settled or dropped it
    expect(await deleteOf(home!)).toEqual({ status: 409, referrers: [pending('e1')], total: 1 });
  });

  it('answer 401 without a token, claiming nothing', async () => {
    const [home] = await client.createHomeBases(1);
    const url = `${BASE}${CLAIMS}`;
    const payload = { referrer: employee('e1'), references: [{ field: 'home_base.business_id', business_id: home }] };
    const calls = [
      { method: 'POST' as const, url, payload },
      { method: 'PUT' as const, url: `${url}/${randomUUID()}`, payload: { version: 1 } },
      { method: 'DELETE' as const, url: `${url}/${randomUUID()}` },
    ];
    for (const call of calls) {
      const response = await world.harness.app.inject(call);
      expect(response.statusCode, call.method).toBe(401);
      expect(response.headers['www-authenticate'], call.method).toMatch(/^Bearer/);
    }
    expect(await deleteOf(home!)).toEqual({ status: 204 });
  });

  // Before, a tenant's token was enough: anyone who reached the port could leave home bases undeletable.
  it("answer 403 to a tenant's token without the services' key, or with a wrong one, claiming nothing", async () => {
    const [home] = await client.createHomeBases(1);
    const payload = { referrer: employee('e1'), references: [{ field: 'home_base.business_id', business_id: home }] };
    const claim = await claimed(employee('e2'), home!);
    for (const key of [undefined, 'not-the-key', `${world.harness.env.variables.INTERNAL_API_KEY}x`]) {
      const headers = { [INTERNAL_API_KEY_HEADER]: key ?? '' };
      const calls = [
        await client.inject('POST', CLAIMS, payload, headers),
        await client.inject('PUT', `${CLAIMS}/${claim}`, { version: 1 }, headers),
        await client.inject('DELETE', `${CLAIMS}/${claim}`, undefined, headers),
      ];
      for (const response of calls) expectProblemWithStatus(response, 403, { detail: expect.stringContaining(INTERNAL_API_KEY_HEADER) });
    }
    // the claim made with the key is the only one, neither settled nor dropped
    expect(await deleteOf(home!)).toEqual({ status: 409, referrers: [pending('e2')], total: 1 });
  });

  it('refuse a referrer of a kind whose events the service does not follow, naming the field', async () => {
    const [home] = await client.createHomeBases(1);
    const response = await client.claim({ entity: 'actual', id: 'a1' }, [{ field: 'home_base.business_id', business_id: home! }]);
    expect(response.statusCode).toBe(400);
    expect(json<{ violations: { field: string }[] }>(response).violations.map(({ field }) => field)).toEqual(['referrer.entity']);
    expect(await deleteOf(home!)).toEqual({ status: 204 });
  });

  it('are not in the OpenAPI paths the service hands the gateway', async () => {
    const response = await world.harness.app.inject({ method: 'GET', url: OPENAPI_PATHS_URL });
    expect(response.statusCode).toBe(200);
    const paths = Object.keys(json<{ paths: Record<string, unknown> }>(response).paths);
    expect(paths).toContain('/home-base/{home_base_id}');
    expect(paths.filter((path) => path.includes('internal') || path.includes('claim'))).toEqual([]);
  });
});
