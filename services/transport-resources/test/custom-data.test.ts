import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@rm/contracts';
import { uniqueName, waitFor, type RecordedEvents } from '@rm/testkit';
import { BASE, json, recordTenantEvents, startTransportResources, truckBody, type TransportResourcesHarness } from './helpers.js';

// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
let harness: TransportResourcesHarness;
let headers: Record<string, string>;
let events: RecordedEvents<EventEnvelope>;
const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  harness = await startTransportResources();
  headers = await harness.as(tenant);
  events = await recordTenantEvents(tenant);
});

afterAll(async () => {
  await events?.close();
  await harness?.close();
});

/** Keys that mean something to MongoDB, BSON or JavaScript, and the empty key. */
const AWKWARD_KEYS = ['$set', '$where', 'a.b', '.', '__proto__', 'constructor', 'prototype', '_bsontype', '$ref', '$id', '$db', '', 'toString', 'hasOwnProperty'];

/** A transport resource body as JSON text with `customData` (JSON text) as its custom_data, as sent over the wire. */
const bodyText = (customData: string) => `${JSON.stringify(truckBody()).slice(0, -1)},"custom_data":${customData}}`;

const put = (id: string, customData: string) =>
  harness.app.inject({
    method: 'PUT',
    url: `${BASE}/transport-resource/${id}`,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: bodyText(customData),
  });
const get = (id: string) => harness.app.inject({ method: 'GET', url: `${BASE}/transport-resource/${id}`, headers });

/** The JSON text of a value as the service must give it back: what JSON.parse makes of the text sent, serialized again. */
const normalized = (text: string) => JSON.stringify(JSON.parse(text));
const customDataText = (body: unknown) => JSON.stringify((body as { custom_data: unknown }).custom_data);

/** The events of the transport resource once `count` of them have arrived. */
const eventsOf = (id: string, count: number) =>
  waitFor(`${count} events of ${id}`, async () => {
    const found = events.received.filter(({ event }) => event.entity_id === id).map(({ event }) => event);
    return found.length >= count && found;
  });

/** Every page of the tenant's list. */
async function listAll(): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
    const query = cursor === undefined ? '?limit=1000' : `?limit=1000&cursor=${encodeURIComponent(cursor)}`;
    const page = json<{ transport_resources: Record<string, unknown>[]; cursors: { next?: string } }>(
      await harness.app.inject({ method: 'GET', url: `${BASE}/transport-resource${query}`, headers }),
    );
    all.push(...page.transport_resources);
    cursor = page.cursors.next;
  }
  return all;
}

describe('custom_data with awkward keys', () => {
  const awkward = [
    '{"$set":{"inactive":true},"$where":"sleep(1000)","$inc":{"version":1}}',
    '{"a.b":1,"a":{"b.c":{"d.e":[1,{"f.g":"h"}]}},".":".","..":null}',
    '{"__proto__":{"polluted":"yes","isAdmin":true},"nested":{"__proto__":{"polluted":"deep"}}}',
    '{"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"x":1}}',
    '{"_bsontype":"ObjectId","id":"0123456789ab","inner":{"_bsontype":"Code","code":"x"}}',
    '{"$ref":"transport_resources","$id":"truck-1","$db":"admin"}',
    '{"":"empty key","nested":{"":{"":[]}}}',
    '{"toString":"not a function","hasOwnProperty":1,"valueOf":null}',
    '{"mixed":[{"$set":1},{"__proto__":[]},{"":{"a.b":{"_bsontype":"Long"}}}],"unicode":"Ünïcødé ✓ 🚚","escaped":"\\"\\\\\\n\\u0000"}',
  ];

  it.each(awkward.map((text, index) => [`awkward-${index}`, text]))('%s comes back as sent from PUT, GET, the list and its event', async (id, text) => {
    const response = await put(id, text);
    expect(response.statusCode, response.body).toBe(201);
    expect(customDataText(json(response))).toBe(normalized(text));
    // the response text itself carries the keys, not only what JSON.parse makes of it
    for (const key of Object.keys(JSON.parse(text) as object)) expect(response.body).toContain(JSON.stringify(key));

    expect(customDataText(json(await get(id)))).toBe(normalized(text));
    const listed = (await listAll()).find((item) => item.business_id === id);
    expect(customDataText(listed)).toBe(normalized(text));
    const [created] = await eventsOf(id, 1);
    expect(customDataText(created?.data)).toBe(normalized(text));

    // sent back unchanged, it is no write at all
    const before = harness.writes();
    const again = await put(id, text);
    expect(again.statusCode).toBe(200);
    expect(again.headers.etag).toBe('W/"1"');
    expect(harness.writes()).toBe(before);
  });

  it('keeps key order and updates a custom_data whose keys are awkward', async () => {
    const id = 'awkward-update';
    expect((await put(id, '{"z":1,"$a":2,"__proto__":{"b":3}}')).statusCode).toBe(201);
    const updated = await put(id, '{"__proto__":{"b":4},"z":1,"$a":2}');
    expect(updated.statusCode).toBe(200);
    expect(updated.headers.etag).toBe('W/"2"');
    expect(customDataText(json(await get(id)))).toBe('{"__proto__":{"b":4},"z":1,"$a":2}');
    const [, event] = await eventsOf(id, 2);
    expect(event).toMatchObject({ type: 'transport-resource.updated', version: 2 });
    expect(customDataText(event?.data)).toBe('{"__proto__":{"b":4},"z":1,"$a":2}');
  });

  it('leaves Object.prototype unpolluted', () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    const plain: Record<string, unknown> = {};
    expect(plain.polluted).toBeUndefined();
    expect(plain.isAdmin).toBeUndefined();
    expect(plain.x).toBeUndefined();
    expect(typeof plain.toString).toBe('function');
  });
});

describe('custom_data, any JSON object', () => {
  const key = fc.oneof(fc.constantFrom(...AWKWARD_KEYS), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.string({ maxLength: 4 }));
  /** JSON text, built by hand so that a `__proto__` key is an ordinary key of the text. */
  const { object } = fc.letrec<{ value: string; leaf: string; array: string; object: string }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, tie('leaf'), tie('array'), tie('object')),
    leaf: fc.oneof(
      fc.jsonValue({ maxDepth: 2, stringUnit: 'grapheme' }).map((value) => JSON.stringify(value)),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
      fc.constantFrom('null', 'true', 'false', '0', '-1', '""', '{}', '[]'),
    ),
    array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
    object: fc
      .uniqueArray(fc.tuple(key, tie('value')), { selector: ([name]) => name, maxLength: 6 })
      .map((entries) => `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`),
  }));
  const underLimit = object.filter((text) => Buffer.byteLength(normalized(text)) <= 16_384);

  it('comes back deep-equal from PUT and GET, and in its event', async () => {
    const sent = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(underLimit, async (text) => {
        const id = `prop-${sent.size}`;
        sent.set(id, normalized(text));
        const response = await put(id, text);
        expect(response.statusCode, response.body).toBe(201);
        expect(customDataText(json(response))).toBe(normalized(text));
        expect(customDataText(json(await get(id)))).toBe(normalized(text));
      }),
      { numRuns: 50 },
    );
    expect(sent.size).toBeGreaterThanOrEqual(50);
    for (const [id, text] of sent) {
      const [created] = await eventsOf(id, 1);
      expect(customDataText(created?.data), id).toBe(text);
    }
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
  });
});
