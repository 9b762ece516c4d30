import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../unique-name.js';
import { BASE, useWorld } from '../service-helpers.js';
import { expectProblemWithStatus, json, type Body, type Headers, type InjectedResponse, type Method, type ServiceUnderTest, UUID_V7 } from './service-under-test.js';

// The unavailability routes of @rm/service-kit (`{parent}/{id}/unavailability…`), as every service
// that serves them answers.

/** What the suite needs of a service harness (startServiceHarness gives it). */
export type UnavailabilityHarness = ServiceUnderTest & { writes(): number };

export interface UnavailabilityApiOptions {
  /** Starts the service over a fresh database. */
  start(): Promise<UnavailabilityHarness>;
  /** The resource whose unavailabilities they are. */
  parent: {
    /** Its path segment: 'employee'. */
    name: string;
    /** Its id's path parameter, also the property of an unavailability that names it: 'employee_id'. */
    field: string;
    /** A valid body of it. */
    body(): Body;
  };
}


const violatedFields = (response: InjectedResponse) => json<{ violations: { field: string }[] }>(response).violations.map((violation) => violation.field);

/** An unavailability on 1 May 2024 from `from` to `to` (like `'08:00'`), in UTC. */
const away = (from: string, to: string, description?: string) => ({
  from: `2024-05-01T${from}:00Z`,
  to: `2024-05-01T${to}:00Z`,
  ...(description === undefined ? {} : { description }),
});

/** A fresh uuid for a caller-chosen id (version 4, as a source system might make it). */
const newId = () => randomUUID();

/** Declares the tests of the unavailabilities of one kind of parent, against a service of its own. */
export function describeUnavailabilityApi({ start, parent }: UnavailabilityApiOptions): void {
  const PARENT = 'away';
  const listPath = `/${parent.name}/{${parent.field}}/unavailability`;
  const itemPath = `${listPath}/{unavailability_id}`;

  const { world: harness } = useWorld(start);
  let alice: Headers;

  const send = (method: Method, url: string, body?: unknown, headers: Headers = {}) =>
    harness.app.inject({ method, url, headers: { ...alice, ...headers }, ...(body === undefined ? {} : { payload: body as object }) });
  const parentUrl = (id: string) => `${BASE}/${parent.name}/${id}`;
  const putParent = (id: string, headers: Headers = {}) => send('PUT', parentUrl(id), parent.body(), headers);
  const listUrl = (of = PARENT) => `${parentUrl(of)}/unavailability`;
  const itemUrl = (id: string, of = PARENT) => `${listUrl(of)}/${id}`;
  const post = (body: unknown, headers: Headers = {}, of = PARENT) => send('POST', listUrl(of), body, headers);
  const put = (id: string, body: unknown, headers: Headers = {}, of = PARENT) => send('PUT', itemUrl(id, of), body, headers);
  const get = (id: string, headers: Headers = {}, of = PARENT) => send('GET', itemUrl(id, of), undefined, headers);
  const remove = (id: string, headers: Headers = {}, of = PARENT) => send('DELETE', itemUrl(id, of), undefined, headers);
  const list = (query: Record<string, string> = {}, of = PARENT) =>
    send('GET', `${listUrl(of)}${Object.keys(query).length === 0 ? '' : `?${new URLSearchParams(query).toString()}`}`);
  /** What a read shows of an unavailability written with `body`. */
  const shown = (id: unknown, body: Body, version: number, of = PARENT) => ({ id, [parent.field]: of, ...body, version });

  describe(`${parent.name} unavailabilities`, () => {
    beforeAll(async () => {
      alice = await harness.as(uniqueName('tenant-a'));
      expect((await putParent(PARENT)).statusCode).toBe(201);
    });

    describe(`POST ${listPath}`, () => {
      it(`creates it: 201 with a generated UUIDv7 id and the ${parent.name}, ETag and Location`, async () => {
        const response = await post(away('08:00', '10:00', 'Away'));
        expect(response.statusCode).toBe(201);
        const body = json(response);
        expect(body).toEqual(shown(expect.stringMatching(UUID_V7), away('08:00', '10:00', 'Away'), 1));
        expect(response.headers.etag).toBe('W/"1"');
        expect(response.headers['preference-applied']).toBe('return=representation');
        expect(response.headers.location).toMatch(new RegExp(`^http://[^/]+${listUrl()}/${String(body.id)}$`));
      });

      it('reads it back where Location points, with its ETag', async () => {
        const response = await post(away('08:00', '10:00'));
        const read = await send('GET', new URL(response.headers.location as string).pathname);
        expect(read.statusCode).toBe(200);
        expect(read.headers.etag).toBe('W/"1"');
        expect(json(read)).toEqual(shown(json(response).id, away('08:00', '10:00'), 1));
      });

      it('answers 204 with the id in Location for Prefer: return=minimal', async () => {
        const response = await post(away('08:00', '10:00'), { prefer: 'return=minimal' });
        expect(response.statusCode).toBe(204);
        expect(response.body).toBe('');
        expect(response.headers.etag).toBe('W/"1"');
        expect(response.headers['preference-applied']).toBe('return=minimal');
        const id = /\/unavailability\/([0-9a-f-]{36})$/.exec(response.headers.location as string)?.[1];
        expect(id).toMatch(UUID_V7);
        expect((await get(id!)).statusCode).toBe(200);
      });

      it('returns date-times with offsets in UTC', async () => {
        const response = await post({ from: '2024-05-01T10:00:00+02:00', to: '2024-05-01T12:30:00-01:00' });
        expect(json(response)).toMatchObject({ from: '2024-05-01T08:00:00Z', to: '2024-05-01T13:30:00Z' });
        expect(json(await get(String(json(response).id)))).toMatchObject({ from: '2024-05-01T08:00:00Z', to: '2024-05-01T13:30:00Z' });
      });

      it(`ignores the read-only id, ${parent.field} and version of a body`, async () => {
        const response = await post({ ...away('08:00', '10:00'), id: newId(), [parent.field]: 'other', version: 9 });
        expect(response.statusCode).toBe(201);
        expect(json(response)).toMatchObject({ [parent.field]: PARENT, version: 1 });
      });

      it('requires from and to, and refuses unknown fields and malformed date-times', async () => {
        expect(violatedFields(await post({ to: '2024-05-01T10:00:00Z' }))).toEqual(['from']);
        expect(violatedFields(await post({ from: '2024-05-01T10:00:00Z' }))).toEqual(['to']);
        expect(violatedFields(await post({ ...away('08:00', '10:00'), reason: 'x' }))).toEqual(['reason']);
        expect(violatedFields(await post({ from: '2024-05-01 08:00', to: '2024-05-01T10:00:00Z' }))).toEqual(['from']);
        // a date-time needs an offset
        expect(violatedFields(await post({ from: '2024-05-01T08:00:00', to: '2024-05-01T10:00:00Z' }))).toEqual(['from']);
      });

      it('creates once per Idempotency-Key: a retry answers with the same unavailability, replayed; another body is a 422', async () => {
        const keyedParent = 'keyed';
        await putParent(keyedParent);
        const keyed = { 'idempotency-key': 'away-retry' };
        const first = await post(away('08:00', '10:00'), keyed, keyedParent);
        const again = await post(away('08:00', '10:00'), keyed, keyedParent);
        expect(first.statusCode).toBe(201);
        expect([again.statusCode, again.headers['idempotent-replayed'], again.headers.location]).toEqual([201, 'true', first.headers.location]);
        expect((await post(away('08:00', '11:00'), keyed, keyedParent)).statusCode).toBe(422);
        expect(json<unknown[]>(await list({}, keyedParent))).toHaveLength(1);
      });
    });

    describe(`GET ${listPath} by range`, () => {
      const ranged = 'ranged';
      const ids: Record<string, string> = {};
      const listed = async (query: Record<string, string>) => {
        const response = await list(query, ranged);
        expect(response.statusCode).toBe(200);
        return json<{ id: string }[]>(response)
          .map((item) => Object.keys(ids).find((name) => ids[name] === item.id))
          .sort();
      };

      beforeAll(async () => {
        await putParent(ranged);
        for (const [name, body] of Object.entries({ morning: away('08:00', '10:00'), noon: away('12:00', '14:00'), night: away('20:00', '23:00') })) {
          ids[name] = json<{ id: string }>(await post(body, {}, ranged)).id;
        }
        // updated once: the list shows the current version
        expect((await put(ids.night!, away('20:00', '23:00', 'Inspection'), {}, ranged)).statusCode).toBe(200);
      });

      it('lists every unavailability with its version without a range', async () => {
        const response = await list({}, ranged);
        expect(response.statusCode).toBe(200);
        expect(json(response)).toHaveLength(3);
        expect(json(response)).toContainEqual(shown(ids.noon, away('12:00', '14:00'), 1, ranged));
        expect(json(response)).toContainEqual(shown(ids.night, away('20:00', '23:00', 'Inspection'), 2, ranged));
      });

      it.each<[string, Record<string, string>, string[]]>([
        ['open until: from inside one', { from: '2024-05-01T13:00:00Z' }, ['night', 'noon']],
        ['open from: until inside one', { until: '2024-05-01T09:00:00Z' }, ['morning']],
        ['closed, cutting two that extend beyond it', { from: '2024-05-01T09:00:00Z', until: '2024-05-01T13:00:00Z' }, ['morning', 'noon']],
        ['closed, with offsets', { from: '2024-05-01T11:00:00+02:00', until: '2024-05-01T12:30:00+02:00' }, ['morning']],
        ['closed, around one', { from: '2024-05-01T11:00:00Z', until: '2024-05-01T15:00:00Z' }, ['noon']],
        ['closed, inside one', { from: '2024-05-01T12:30:00Z', until: '2024-05-01T13:00:00Z' }, ['noon']],
        ['closed, only touching two', { from: '2024-05-01T10:00:00Z', until: '2024-05-01T12:00:00Z' }, []],
        ['open until, from where one ends', { from: '2024-05-01T14:00:00Z' }, ['night']],
        ['open from, until where the first starts', { until: '2024-05-01T08:00:00Z' }, []],
        ['closed, the whole day', { from: '2024-05-01T00:00:00Z', until: '2024-05-02T00:00:00Z' }, ['morning', 'night', 'noon']],
      ])('matches the overlapping ones: %s', async (_case, query, names) => {
        expect(await listed(query)).toEqual(names);
      });

      it('refuses from after until with a violation on until', async () => {
        const response = await list({ from: '2024-05-01T13:00:00Z', until: '2024-05-01T09:00:00Z' }, ranged);
        expectProblemWithStatus(response, 400);
        expect(violatedFields(response)).toEqual(['until']);
      });

      it('refuses a malformed from or until and an unknown query parameter', async () => {
        for (const [query, field] of [
          [{ from: 'yesterday' }, 'from'],
          [{ until: '2024-05-01' }, 'until'],
          [{ since: '2024-05-01T00:00:00Z' }, 'since'],
        ] as const) {
          const response = await list(query, ranged);
          expect(response.statusCode).toBe(400);
          expect(violatedFields(response)).toEqual([field]);
        }
      });

      it(`lists only this ${parent.name}'s unavailabilities`, async () => {
        const other = 'other-list';
        await putParent(other);
        expect(json(await list({}, other))).toEqual([]);
        await post(away('08:00', '10:00'), {}, other);
        expect(json(await list({}, other))).toHaveLength(1);
        expect(json(await list({}, ranged))).toHaveLength(3);
      });
    });

    describe(`PUT ${itemPath}`, () => {
      it('creates with the caller-chosen id (201), then updates (200) and the version grows', async () => {
        const id = newId();
        const createdResponse = await put(id, away('08:00', '10:00'));
        expect(createdResponse.statusCode).toBe(201);
        expect(json(createdResponse)).toEqual(shown(id, away('08:00', '10:00'), 1));
        expect(createdResponse.headers.etag).toBe('W/"1"');
        expect(createdResponse.headers['preference-applied']).toBe('return=representation');
        expect(createdResponse.headers.location).toMatch(new RegExp(`^http://[^/]+${itemUrl(id)}$`));

        const updated = await put(id, away('08:00', '11:00', 'Longer'));
        expect(updated.statusCode).toBe(200);
        expect(json(updated)).toEqual(shown(id, away('08:00', '11:00', 'Longer'), 2));
        expect(updated.headers.etag).toBe('W/"2"');
        expect(json(await get(id))).toMatchObject({ description: 'Longer', version: 2 });
      });

      it('keeps the version and writes nothing when the body sent back from a GET is unchanged', async () => {
        const id = newId();
        await put(id, away('08:00', '10:00', 'Tyres'));
        const read = json(await get(id));
        const before = harness.writes();
        const response = await put(id, read);
        expect(response.statusCode).toBe(200);
        expect(response.headers.etag).toBe('W/"1"');
        expect(json(response)).toEqual(read);
        expect(harness.writes()).toBe(before);
      });

      it('answers 204 without a body for Prefer: return=minimal, with the write headers', async () => {
        const id = newId();
        const response = await put(id, away('08:00', '10:00'), { prefer: 'return=minimal' });
        expect(response.statusCode).toBe(204);
        expect(response.body).toBe('');
        expect(response.headers.etag).toBe('W/"1"');
        expect(response.headers['preference-applied']).toBe('return=minimal');
        expect(response.headers.location).toMatch(new RegExp(`${itemUrl(id)}$`));

        const updated = await put(id, away('08:00', '12:00'), { prefer: 'return=minimal' });
        expect(updated.statusCode).toBe(204);
        expect(updated.headers.etag).toBe('W/"2"');
      });

      it('writes with the current If-Match and answers 412 to a stale one, changing nothing', async () => {
        const id = newId();
        await put(id, away('08:00', '10:00'));
        expect((await put(id, away('08:00', '11:00'), { 'if-match': 'W/"1"' })).statusCode).toBe(200);
        const before = harness.writes();
        const stale = await put(id, away('08:00', '12:00'), { 'if-match': 'W/"1"' });
        expectProblemWithStatus(stale, 412, { detail: expect.stringContaining(id) });
        expect(harness.writes()).toBe(before);
        expect(json(await get(id))).toMatchObject({ ...away('08:00', '11:00'), version: 2 });
      });

      it('answers 412 to a stale If-Match even when the body is unchanged', async () => {
        const id = newId();
        await put(id, away('08:00', '10:00'));
        await put(id, away('08:00', '11:00'));
        expect((await put(id, away('08:00', '11:00'), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
        const current = await put(id, away('08:00', '11:00'), { 'if-match': 'W/"2"' });
        expect(current.statusCode).toBe(200);
        expect(current.headers.etag).toBe('W/"2"');
      });

      it('answers 412 to an If-Match on an unavailability that does not exist, and creates nothing', async () => {
        const id = newId();
        expect((await put(id, away('08:00', '10:00'), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
        expect((await get(id)).statusCode).toBe(404);
      });

      it('refuses a to that is not strictly after from, naming to', async () => {
        for (const body of [away('10:00', '10:00'), away('10:00', '09:00'), { from: '2024-05-01T10:00:00+02:00', to: '2024-05-01T08:00:00Z' }]) {
          const id = newId();
          expect(expectProblemWithStatus(await put(id, body), 400).violations).toEqual([{ field: 'to', message: 'must be after from' }]);
          expect((await get(id)).statusCode).toBe(404);
        }
        expect(violatedFields(await post(away('10:00', '10:00')))).toEqual(['to']);
        expect(violatedFields(await post(away('10:00', '09:00')))).toEqual(['to']);
        // one second after is enough
        expect((await put(newId(), { from: '2024-05-01T10:00:00Z', to: '2024-05-01T10:00:01Z' })).statusCode).toBe(201);
      });

      it('answers 400, never 500, to a date-time whose UTC instant lies outside the years 0000 to 9999', async () => {
        // Both are valid RFC 3339 date-times, but in UTC they are in the year 10000 and the year -1, which
        // no RFC 3339 date-time can say: refused as invalid input, or stored, but never a server error.
        const cases: [Record<string, string>, string][] = [
          [{ from: '2024-01-01T00:00:00Z', to: '9999-12-31T23:59:59-01:00' }, 'to'],
          [{ from: '0000-01-01T00:30:00+01:00', to: '2024-01-01T00:00:00Z' }, 'from'],
        ];
        for (const [body, field] of cases) {
          const id = newId();
          for (const response of [await post(body), await put(id, body)]) {
            expectProblemWithStatus(response, 400);
            expect(violatedFields(response)).toEqual([field]);
          }
        }
        // the last instant of the year 9999 in UTC is fine
        const latest = await put(newId(), { from: '9999-12-31T20:00:00Z', to: '9999-12-31T23:59:59Z' });
        expect(latest.statusCode).toBe(201);
        expect(json(latest)).toMatchObject({ from: '9999-12-31T20:00:00Z', to: '9999-12-31T23:59:59Z' });
      });

      it('accepts a description of 1000 characters and refuses a longer one', async () => {
        expect((await put(newId(), away('08:00', '10:00', 'x'.repeat(1000)))).statusCode).toBe(201);
        const response = await put(newId(), away('08:00', '10:00', 'x'.repeat(1001)));
        expect(response.statusCode).toBe(400);
        expect(violatedFields(response)).toEqual(['description']);
      });

      it('refuses an id that is not a uuid with a violation on the path parameter, on every route', async () => {
        for (const response of [await put('away-1', away('08:00', '10:00')), await get('away-1'), await remove('not-a-uuid')]) {
          expectProblemWithStatus(response, 400);
          expect(violatedFields(response)).toEqual(['unavailability_id']);
        }
      });
    });

    describe(`GET ${itemPath}`, () => {
      it('answers 404 naming a missing unavailability', async () => {
        const id = newId();
        expectProblemWithStatus(await get(id), 404, { detail: expect.stringContaining(id) });
      });

      it(`does not find an unavailability under another ${parent.name}'s path`, async () => {
        const other = 'other';
        await putParent(other);
        const id = json<{ id: string }>(await post(away('08:00', '10:00'))).id;
        expect((await get(id, {}, other)).statusCode).toBe(404);
        expect((await remove(id, {}, other)).statusCode).toBe(404);
        expect((await get(id)).statusCode).toBe(200);
      });
    });

    describe(`DELETE ${itemPath}`, () => {
      it('deletes with an empty 204, after which it is gone and a second delete is 404', async () => {
        const id = json<{ id: string }>(await post(away('08:00', '10:00'))).id;
        const response = await remove(id);
        expect(response.statusCode).toBe(204);
        expect(response.body).toBe('');
        expect((await get(id)).statusCode).toBe(404);
        expect((await remove(id)).statusCode).toBe(404);
      });

      it('answers 412 to a stale If-Match, keeping it, and deletes with the current one', async () => {
        const id = newId();
        await put(id, away('08:00', '10:00'));
        await put(id, away('08:00', '11:00'));
        expectProblemWithStatus(await remove(id, { 'if-match': 'W/"1"' }), 412);
        expect(json(await get(id))).toMatchObject({ version: 2 });
        const current = await remove(id, { 'if-match': 'W/"2"' });
        expect(current.statusCode).toBe(204);
        expect(current.body).toBe('');
        expect((await get(id)).statusCode).toBe(404);
      });

      it('continues the versions of a deleted id that a PUT brings back', async () => {
        const id = newId();
        await put(id, away('08:00', '10:00'));
        await remove(id);
        const again = await put(id, away('08:00', '10:00'));
        expect(again.statusCode).toBe(201);
        expect(json(again)).toMatchObject({ id, version: 3 });
      });
    });

    describe(`unknown ${parent.name}`, () => {
      it(`answers 404 naming the ${parent.name} on every route, writing nothing`, async () => {
        const id = newId();
        const before = harness.writes();
        for (const response of [
          await post(away('08:00', '10:00'), {}, 'nobody'),
          await list({}, 'nobody'),
          await list({ from: '2024-05-01T00:00:00Z' }, 'nobody'),
          await get(id, {}, 'nobody'),
          await put(id, away('08:00', '10:00'), {}, 'nobody'),
          await remove(id, {}, 'nobody'),
        ]) {
          expectProblemWithStatus(response, 404, { detail: expect.stringContaining('nobody') });
        }
        expect(harness.writes()).toBe(before);
      });

      it(`answers 404 once the ${parent.name} is deleted`, async () => {
        const gone = 'gone';
        await putParent(gone);
        const id = json<{ id: string }>(await post(away('08:00', '10:00'), {}, gone)).id;
        expect((await send('DELETE', parentUrl(gone))).statusCode).toBe(204);
        expect((await get(id, {}, gone)).statusCode).toBe(404);
        expect((await list({}, gone)).statusCode).toBe(404);
        expect((await put(id, away('08:00', '10:00'), {}, gone)).statusCode).toBe(404);
        expect((await post(away('08:00', '10:00'), {}, gone)).statusCode).toBe(404);
      });

      it(`refuses a ${parent.field} outside the business id pattern with 400`, async () => {
        const response = await send('GET', listUrl('bad%20id'));
        expect(response.statusCode).toBe(400);
        expect(violatedFields(response)).toEqual([parent.field]);
      });
    });

    describe('tenants', () => {
      it(`never shows, changes or deletes another tenant's unavailability, even under its own ${parent.name} of the same id`, async () => {
        const id = newId();
        await put(id, away('08:00', '10:00', 'Alice'));
        const bob = await harness.as(uniqueName('tenant-b'));
        expect((await get(id, bob)).statusCode).toBe(404);
        expect((await remove(id, bob)).statusCode).toBe(404);
        expect((await put(id, away('08:00', '12:00'), bob)).statusCode).toBe(404);
        expect((await send('GET', listUrl(), undefined, bob)).statusCode).toBe(404);

        await putParent(PARENT, bob);
        expect((await get(id, bob)).statusCode).toBe(404);
        expect((await remove(id, bob)).statusCode).toBe(404);
        expect(json(await send('GET', listUrl(), undefined, bob))).toEqual([]);
        // The same id in tenant B is B's own unavailability, not A's.
        expect((await put(id, away('08:00', '12:00', 'Bob'), bob)).statusCode).toBe(201);
        expect(json(await get(id))).toMatchObject({ ...away('08:00', '10:00', 'Alice'), version: 1 });
        expect(json(await get(id, bob))).toMatchObject({ ...away('08:00', '12:00', 'Bob'), version: 1 });
      });
    });
  });
}
