import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Collection, Filter } from 'mongodb';
import { connectTestMongo, type TestMongo } from '@rm/testkit';
import { PageQuery } from '@rm/contracts';
import { createCursorCodec, isStringKey, paginate, ValidationProblem, type KeysetQuery } from '../src/index.js';
import { BASE_PATH, buildTestService, withTrailingBitSet, type TestService } from './helpers.js';

const codec = createCursorCodec('a-test-secret-that-is-long-enough-1234');

describe('createCursorCodec', () => {
  it('round-trips a payload', () => {
    const payload = { after: 'e-17', scope: 'tenant-a' };
    expect(codec.decode(codec.encode(payload))).toEqual(payload);
  });

  it.each([
    ['a changed payload', (cursor: string) => `${Buffer.from('{"after":"e-99"}').toString('base64url')}.${cursor.split('.')[1]}`],
    ['a changed signature', (cursor: string) => `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`],
    ['a cursor of another secret', () => createCursorCodec('another-secret-that-is-long-enough-5678').encode({ after: 'e-1' })],
    ['no signature', (cursor: string) => cursor.split('.')[0] ?? ''],
    ['garbage', () => 'garbage'],
    ['padding after the signature', (cursor: string) => `${cursor}=`],
    ['a ! after the signature', (cursor: string) => `${cursor}!`],
    ['a NUL after the signature', (cursor: string) => `${cursor}\u0000`],
    ['a space inside the signature', (cursor: string) => `${cursor.slice(0, -3)} ${cursor.slice(-3)}`],
    ['padding after the payload', (cursor: string) => cursor.replace('.', '=.')],
    ['standard base64 instead of base64url', (cursor: string) => `${cursor.split('.')[0]}.${Buffer.from(cursor.split('.')[1] ?? '', 'base64url').toString('base64')}`],
    ['the signature spelled with unused bits set', (cursor: string) => withTrailingBitSet(cursor)],
  ])('refuses %s with a violation on cursor', (_case, tamper) => {
    const cursor = tamper(codec.encode({ after: 'e-17' }));
    let thrown: unknown;
    try {
      codec.decode(cursor);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationProblem);
    expect((thrown as ValidationProblem).violations).toEqual([{ field: 'cursor', message: 'is not a valid cursor' }]);
  });
});

interface Thing {
  _id: string;
  tenant: string;
}

describe('paginate over MongoDB', () => {
  let mongo: TestMongo;
  let things: Collection<Thing>;
  let service: TestService;
  let headers: { authorization: string };

  /** Maps a keyset query onto the collection, scoped by tenant. */
  function fetchThings(tenant: string) {
    return ({ bound, descending, limit }: KeysetQuery<string>) => {
      const filter: Filter<Thing> = { tenant };
      if (bound !== undefined && 'after' in bound) filter._id = { $gt: bound.after };
      if (bound !== undefined && 'from' in bound) filter._id = { $gte: bound.from };
      if (bound !== undefined && 'before' in bound) filter._id = { $lt: bound.before };
      return things.find(filter).sort({ _id: descending ? -1 : 1 }).limit(limit).toArray();
    };
  }

  beforeAll(async () => {
    mongo = await connectTestMongo('service_kit_paging');
    things = mongo.db.collection<Thing>('things');
    await things.insertMany([
      ...['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7'].map((id) => ({ _id: `a-${id}`, tenant: 'tenant-a' })),
      { _id: 'b-e1', tenant: 'tenant-b' },
    ]);
    service = await buildTestService(async (app) => {
      app.get('/things', { schema: { querystring: PageQuery } }, async (request) => {
        const { cursor, limit } = request.query as { cursor?: string; limit: number };
        const { items, cursors } = await paginate({
          cursor,
          limit,
          codec,
          key: (thing: Thing) => thing._id,
          isKey: isStringKey,
          scope: `${request.auth.tenant}:things`,
          fetch: fetchThings(request.auth.tenant),
        });
        return { things: items.map((thing) => thing._id), cursors };
      });
    });
    headers = await service.bearer('tenant-a');
  });
  afterAll(async () => {
    await service.app.close();
    await mongo.close();
  });

  async function page(query: string, authorization = headers) {
    const response = await service.app.inject({ url: `${BASE_PATH}/things?${query}`, headers: authorization });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { things: string[]; cursors: { self?: string; next?: string; prev?: string } };
  }

  it('walks forward and back with next and prev, each absent at its end', async () => {
    const first = await page('limit=3');
    expect(first.things).toEqual(['a-e1', 'a-e2', 'a-e3']);
    expect(Object.keys(first.cursors).sort()).toEqual(['next', 'self']);

    const second = await page(`limit=3&cursor=${first.cursors.next}`);
    expect(second.things).toEqual(['a-e4', 'a-e5', 'a-e6']);
    expect(Object.keys(second.cursors).sort()).toEqual(['next', 'prev', 'self']);

    const last = await page(`limit=3&cursor=${second.cursors.next}`);
    expect(last.things).toEqual(['a-e7']);
    expect(Object.keys(last.cursors).sort()).toEqual(['prev', 'self']);

    const backToSecond = await page(`limit=3&cursor=${last.cursors.prev}`);
    expect(backToSecond.things).toEqual(['a-e4', 'a-e5', 'a-e6']);
    expect(backToSecond.cursors.next).toBeDefined();

    const backToFirst = await page(`limit=3&cursor=${backToSecond.cursors.prev}`);
    expect(backToFirst.things).toEqual(['a-e1', 'a-e2', 'a-e3']);
    expect(backToFirst.cursors.prev).toBeUndefined();

    const again = await page(`limit=3&cursor=${second.cursors.self}`);
    expect(again.things).toEqual(second.things);
  });

  it('has no cursors for an empty list', async () => {
    const empty = await page('limit=3', await service.bearer('tenant-empty'));
    expect(empty).toEqual({ things: [], cursors: {} });
  });

  it('refuses a tampered cursor, a cursor with junk after it and a cursor of another tenant with a 400 on cursor', async () => {
    const first = await page('limit=3');
    const tampered = `${Buffer.from('{"after":"a-e5","scope":"tenant-a:things"}').toString('base64url')}.${first.cursors.next?.split('.')[1]}`;
    const otherTenant = await service.bearer('tenant-b');
    for (const [cursor, authorization] of [
      [tampered, headers],
      [`${first.cursors.next}%3D`, headers],
      [`${first.cursors.next}!`, headers],
      [`${first.cursors.next}%00`, headers],
      [first.cursors.next, otherTenant],
    ] as const) {
      const response = await service.app.inject({ url: `${BASE_PATH}/things?cursor=${cursor}`, headers: authorization });
      expect(response.statusCode).toBe(400);
      expect(response.json().violations).toEqual([{ field: 'cursor', message: 'is not a valid cursor' }]);
    }
  });
});
