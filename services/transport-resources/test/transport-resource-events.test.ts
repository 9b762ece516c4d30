import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@rm/contracts';
import { uniqueName, waitFor, type RecordedEvents } from '@rm/testkit';
import { TRANSPORT_RESOURCES_COLLECTION } from '../src/store/transport-resource-repository.js';
import { BASE, json, recordTenantEvents, startTransportResources, truckBody, type TransportResourcesHarness } from './helpers.js';

// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
let events: RecordedEvents<EventEnvelope>;
let harness: TransportResourcesHarness;
let headers: Record<string, string>;

beforeAll(async () => {
  harness = await startTransportResources();
  headers = await harness.as(tenant);
  events = await recordTenantEvents(tenant);
});

afterAll(async () => {
  await events?.close();
  await harness?.close();
});

type Body = Record<string, unknown>;

function request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: Body, extra: Record<string, string> = {}) {
  return harness.app.inject({ method, url: `${BASE}${path}`, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload }) });
}

const subject = (entity: string, action: string) => `rm.transport-resources.${tenant}.${entity}.${action}`;
const eventsOf = (entityId: string) => events.received.filter(({ event }) => event.entity_id === entityId);

/** The events of the entity once `count` of them have arrived. */
const arrived = (entityId: string, count: number) =>
  waitFor(`${count} events of ${entityId}`, async () => eventsOf(entityId).length >= count && eventsOf(entityId));

/** Waits for a write made after everything before it, then a little more: what was due has arrived by then. */
async function settle(): Promise<void> {
  const sentinel = `sentinel-${randomUUID()}`;
  expect((await request('PUT', `/transport-resource/${sentinel}`, truckBody())).statusCode).toBe(201);
  await waitFor('the sentinel event', async () => eventsOf(sentinel).length > 0);
  await sleep(300);
}

/** What arrived after `seen` events, sentinels left out. */
const arrivedSince = (seen: number) => events.received.slice(seen).filter(({ event }) => !event.entity_id.startsWith('sentinel-'));

describe('transport-resource events', () => {
  it('publishes created, updated and deleted once each, in order, with the version and the representation', async () => {
    const id = `truck-${randomUUID()}`;
    const put = (body: Body) => request('PUT', `/transport-resource/${id}`, body);
    const created = await put(truckBody());
    expect(created.statusCode).toBe(201);
    expect((await put(truckBody())).headers.etag).toBe('W/"1"'); // unchanged: no write, no event
    const updated = await put(truckBody({ inactive: true, costs: { fixed: 1.00005 } }));
    expect(updated.statusCode).toBe(200);
    expect((await request('DELETE', `/transport-resource/${id}`)).statusCode).toBe(204);

    await arrived(id, 3);
    await settle();
    const published = eventsOf(id);
    expect(published.map(({ subject: on, event }) => [on, event.type, event.version])).toEqual([
      [subject('transport-resource', 'created'), 'transport-resource.created', 1],
      [subject('transport-resource', 'updated'), 'transport-resource.updated', 2],
      [subject('transport-resource', 'deleted'), 'transport-resource.deleted', 3],
    ]);
    expect(published[0]?.event).toMatchObject({ tenant, entity_id: id, data: json(created) });
    expect(published[0]?.event.data).toEqual({ business_id: id, ...truckBody(), inactive: false, version: 1 });
    expect(published[1]?.event.data).toEqual(json(updated));
    expect(published[1]?.event.data).toMatchObject({ inactive: true, costs: { fixed: 1.0001 }, version: 2 });
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
    const id = `truck-${randomUUID()}`;
    await request('PUT', `/transport-resource/${id}`, truckBody());
    const minimal = await request('PUT', `/transport-resource/${id}`, truckBody({ labels: ['min'] }), { prefer: 'return=minimal' });
    expect(minimal.statusCode).toBe(204);
    await arrived(id, 2);
    await settle();
    expect(eventsOf(id).map(({ event }) => [event.type, event.version])).toEqual([
      ['transport-resource.created', 1],
      ['transport-resource.updated', 2],
    ]);
    expect(eventsOf(id)[1]?.event.data).toEqual(json(await request('GET', `/transport-resource/${id}`)));
  });

  it('publishes nothing for an unchanged PUT or a refused write (400, 404, 412)', async () => {
    const id = `truck-${randomUUID()}`;
    const item = `/transport-resource/${id}`;
    await request('PUT', item, truckBody({ custom_data: { a: 1 } }));
    await request('PUT', item, truckBody({ custom_data: { a: 2 } }));
    const state = json(await request('GET', item));
    await settle();
    const seen = events.received.length;

    const writes: [number, () => ReturnType<typeof request>][] = [
      [200, () => request('PUT', item, state)],
      [200, () => request('PUT', item, truckBody({ custom_data: { a: 2 } }))],
      [400, () => request('PUT', item, truckBody({ colour: 'red' }))],
      [400, () => request('PUT', item, truckBody({ capacities: [{ value: 1 }, { value: 2 }] }))],
      [400, () => request('PUT', `/transport-resource/refused-${randomUUID()}`, truckBody({ type: 'BUS' }))],
      [404, () => request('DELETE', `/transport-resource/missing-${randomUUID()}`)],
      [412, () => request('PUT', item, truckBody(), { 'if-match': 'W/"1"' })],
      [412, () => request('PUT', `/transport-resource/missing-${randomUUID()}`, truckBody(), { 'if-match': '*' })],
      [412, () => request('DELETE', item, undefined, { 'if-match': 'W/"1"' })],
    ];
    for (const [status, write] of writes) expect((await write()).statusCode, `answered ${status}`).toBe(status);
    await settle();
    expect(arrivedSince(seen)).toEqual([]);
    expect(json(await request('GET', item))).toEqual(state);
    // events live only inside written documents: a refused write leaves neither
    expect(await harness.service.store.db.collection(TRANSPORT_RESOURCES_COLLECTION).countDocuments({ key: { $regex: '^refused-' } })).toBe(0);
  });

  it('leaves no event waiting in the outbox once published', async () => {
    await settle();
    const waiting = () => harness.service.store.db.collection(TRANSPORT_RESOURCES_COLLECTION).countDocuments({ outbox: { $exists: true } });
    await waitFor('the outbox to be empty', async () => (await waiting()) === 0);
    expect(await waiting()).toBe(0);
  });
});

describe('transport-resource-unavailability events', () => {
  const entity = 'transport-resource-unavailability';
  const body = { from: '2031-04-01T00:00:00Z', to: '2031-04-08T00:00:00Z' };
  const changed = { from: '2031-04-01T00:00:00+02:00', to: '2031-04-08T00:00:00Z', description: 'inspection' };

  /** A new transport resource of the tenant, so that each test starts with no unavailabilities, and the path of its list. */
  async function newTruck(): Promise<{ truck: string; list: string }> {
    const truck = `truck-${randomUUID()}`;
    expect((await request('PUT', `/transport-resource/${truck}`, truckBody())).statusCode).toBe(201);
    return { truck, list: `/transport-resource/${truck}/unavailability` };
  }

  it('publishes created, updated and deleted once each, in order, with the version and the representation', async () => {
    const { truck, list } = await newTruck();
    const posted = await request('POST', list, body);
    expect(posted.statusCode).toBe(201);
    const { id } = json<{ id: string }>(posted);
    const item = `${list}/${id}`;
    const createdState = json(await request('GET', item));
    expect(createdState).toEqual({ ...body, id, transport_resource_id: truck, version: 1 });

    expect((await request('PUT', item, body)).headers.etag).toBe('W/"1"');
    expect((await request('PUT', item, changed)).headers.etag).toBe('W/"2"');
    const updatedState = json(await request('GET', item));
    expect(updatedState).toEqual({ from: '2031-03-31T22:00:00Z', to: changed.to, description: 'inspection', id, transport_resource_id: truck, version: 2 });
    expect((await request('DELETE', item)).statusCode).toBe(204);

    const entityId = `${truck}/${id}`;
    await arrived(entityId, 3);
    await settle();
    const published = eventsOf(entityId);
    expect(published.map(({ subject: on, event }) => [on, event.type, event.version])).toEqual([
      [subject(entity, 'created'), `${entity}.created`, 1],
      [subject(entity, 'updated'), `${entity}.updated`, 2],
      [subject(entity, 'deleted'), `${entity}.deleted`, 3],
    ]);
    for (const { event } of published) expect(event).toMatchObject({ tenant, entity_id: entityId });
    expect(published[0]?.event.data).toEqual(createdState);
    expect(published[1]?.event.data).toEqual(updatedState);
    expect(published[2]?.event.data).toEqual(updatedState);
  });

  it("publishes created for a PUT with the caller's own id", async () => {
    const { truck, list } = await newTruck();
    const id = randomUUID();
    const created = await request('PUT', `${list}/${id}`, body, { prefer: 'return=minimal' });
    expect(created.statusCode).toBe(204);
    const [event] = await arrived(`${truck}/${id}`, 1);
    expect(event?.subject).toBe(subject(entity, 'created'));
    expect(event?.event.data).toEqual({ ...body, id, transport_resource_id: truck, version: 1 });
  });

  it('publishes nothing for an unchanged PUT or a refused write (400, 404, 412)', async () => {
    const { truck, list } = await newTruck();
    const { id } = json<{ id: string }>(await request('POST', list, changed));
    const item = `${list}/${id}`;
    const missing = `${list}/${randomUUID()}`;
    expect((await request('PUT', item, body)).headers.etag).toBe('W/"2"');
    const state = json(await request('GET', item));
    await arrived(`${truck}/${id}`, 2);
    await settle();
    const seen = events.received.length;
    const listed = (await request('GET', list)).body;

    const writes: [number, () => ReturnType<typeof request>][] = [
      [200, () => request('PUT', item, body)],
      [200, () => request('PUT', item, state)],
      [400, () => request('POST', list, { ...body, unknown_field: 1 })],
      [400, () => request('POST', list, { from: body.from, to: body.from })],
      [400, () => request('PUT', item, { ...changed, unknown_field: 1 })],
      [400, () => request('PUT', `${list}/not-a-uuid`, body)],
      [404, () => request('POST', `/transport-resource/nobody-${randomUUID()}/unavailability`, body)],
      [404, () => request('PUT', `/transport-resource/nobody-${randomUUID()}/unavailability/${randomUUID()}`, body)],
      [404, () => request('DELETE', missing)],
      [412, () => request('PUT', item, changed, { 'if-match': 'W/"1"' })],
      [412, () => request('PUT', missing, changed, { 'if-match': 'W/"1"' })],
      [412, () => request('DELETE', item, undefined, { 'if-match': 'W/"1"' })],
    ];
    for (const [status, write] of writes) expect((await write()).statusCode, `answered ${status}`).toBe(status);
    await settle();
    expect(arrivedSince(seen)).toEqual([]);
    expect((await request('GET', list)).body).toBe(listed);
  });
});
