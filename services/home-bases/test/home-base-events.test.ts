import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@rm/contracts';
import { uniqueName, waitFor, type RecordedEvents } from '@rm/testkit';
import { BASE, homeBaseBody, json, recordTenantEvents, startHomeBases, type HomeBasesHarness } from './helpers.js';

// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
let events: RecordedEvents<EventEnvelope>;
let harness: HomeBasesHarness;
let headers: Record<string, string>;

beforeAll(async () => {
  harness = await startHomeBases();
  headers = await harness.as(tenant);
  events = await recordTenantEvents(tenant);
});

afterAll(async () => {
  await events?.close();
  await harness?.close();
});

type Body = Record<string, unknown>;

function request(method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: Body, extra: Record<string, string> = {}) {
  return harness.app.inject({ method, url: `${BASE}${path}`, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload }) });
}

const subject = (action: string) => `rm.home-bases.${tenant}.home-base.${action}`;
const eventsOf = (entityId: string) => events.received.filter(({ event }) => event.entity_id === entityId);

/** The events of the entity once `count` of them have arrived. */
const arrived = (entityId: string, count: number) =>
  waitFor(`${count} events of ${entityId}`, async () => eventsOf(entityId).length >= count && eventsOf(entityId));

/** Waits for a write made after everything before it, then a little more: what was due has arrived by then. */
async function settle(): Promise<void> {
  const sentinel = `sentinel-${randomUUID()}`;
  expect((await request('PUT', `/home-base/${sentinel}`, homeBaseBody())).statusCode).toBe(201);
  await waitFor('the sentinel event', async () => eventsOf(sentinel).length > 0);
  await sleep(300);
}

/** What arrived after `seen` events, sentinels left out. */
const arrivedSince = (seen: number) => events.received.slice(seen).filter(({ event }) => !event.entity_id.startsWith('sentinel-'));

describe('home-base events', () => {
  it('publishes created, updated and deleted once each, in order, with the version and the representation, address included', async () => {
    const id = `hb-${randomUUID()}`;
    const put = (body: Body) => request('PUT', `/home-base/${id}`, body);
    const created = await put(homeBaseBody());
    expect(created.statusCode).toBe(201);
    expect((await put(homeBaseBody())).headers.etag).toBe('W/"1"'); // unchanged: no write, no event
    const address = { name: 'Yard', geo_point: { latitude: 51.05, longitude: 3.72 } };
    const updated = await put(homeBaseBody({ address: { ...address, geo_point: { ...address.geo_point, resolved: true } } }));
    expect(updated.statusCode).toBe(200);
    expect((await request('DELETE', `/home-base/${id}`)).statusCode).toBe(204);

    await arrived(id, 3);
    await settle();
    const published = eventsOf(id);
    expect(published.map(({ subject: on, event }) => [on, event.type, event.version])).toEqual([
      [subject('created'), 'home-base.created', 1],
      [subject('updated'), 'home-base.updated', 2],
      [subject('deleted'), 'home-base.deleted', 3],
    ]);
    expect(published[0]?.event).toMatchObject({ tenant, entity_id: id, data: json(created) });
    expect(published[0]?.event.data).toEqual({ business_id: id, ...homeBaseBody(), version: 1 });
    expect(published[1]?.event.data).toEqual(json(updated));
    expect(published[1]?.event.data).toEqual({ business_id: id, ...homeBaseBody({ address }), version: 2 });
    // a delete carries the removed state, so that a consumer can drop what it derived from it
    expect(published[2]?.event.data).toEqual(json(updated));
    for (const { event } of published) {
      expect(event.tenant).toBe(tenant);
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
      expect(Date.parse(event.occurred_at)).not.toBeNaN();
    }
    expect(new Set(published.map(({ event }) => event.id)).size).toBe(3);
  });

  it('publishes one updated event for an update made with Prefer: return=minimal', async () => {
    const id = `hb-${randomUUID()}`;
    await request('PUT', `/home-base/${id}`, homeBaseBody());
    const minimal = await request('PUT', `/home-base/${id}`, homeBaseBody({ plan_group: 'min' }), { prefer: 'return=minimal' });
    expect(minimal.statusCode).toBe(204);
    await arrived(id, 2);
    await settle();
    expect(eventsOf(id).map(({ event }) => [event.type, event.version])).toEqual([
      ['home-base.created', 1],
      ['home-base.updated', 2],
    ]);
    expect(eventsOf(id)[1]?.event.data).toEqual(json(await request('GET', `/home-base/${id}`)));
  });

  it('publishes nothing for an unchanged PUT or a refused write (400, 404, 412)', async () => {
    const id = `hb-${randomUUID()}`;
    const item = `/home-base/${id}`;
    await request('PUT', item, homeBaseBody());
    await request('PUT', item, homeBaseBody({ plan_group: 'v2' }));
    const state = json(await request('GET', item));
    await arrived(id, 2);
    await settle();
    const seen = events.received.length;

    const writes: [number, () => ReturnType<typeof request>][] = [
      [200, () => request('PUT', item, state)],
      [200, () => request('PUT', item, homeBaseBody({ plan_group: 'v2' }))],
      [400, () => request('PUT', item, homeBaseBody({ colour: 'red' }))],
      [400, () => request('PUT', item, homeBaseBody({ address: { city: 'Gent', zip_code: '9000', country_code: 'XX' } }))],
      [400, () => request('PUT', `/home-base/refused-${randomUUID()}`, homeBaseBody({ name: '' }))],
      [400, () => request('PUT', '/home-base/bad!id', homeBaseBody())],
      [404, () => request('DELETE', `/home-base/missing-${randomUUID()}`)],
      [412, () => request('PUT', item, homeBaseBody(), { 'if-match': 'W/"1"' })],
      [412, () => request('PUT', `/home-base/missing-${randomUUID()}`, homeBaseBody(), { 'if-match': '*' })],
      [412, () => request('DELETE', item, undefined, { 'if-match': 'W/"1"' })],
    ];
    for (const [status, write] of writes) expect((await write()).statusCode, `answered ${status}`).toBe(status);
    await settle();
    expect(arrivedSince(seen)).toEqual([]);
    expect(json(await request('GET', item))).toEqual(state);
  });
});
