import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@rm/contracts';
import { uniqueName, waitFor, type RecordedEvents } from '@rm/testkit';
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

const WRITERS = 10;

function request(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, extra: Record<string, string> = {}) {
  return harness.app.inject({ method, url: `${BASE}${path}`, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload }) });
}

const eventsOf = (entityId: string) => events.received.filter(({ event }) => event.entity_id === entityId).map(({ event }) => event);

/** Waits for a write made after everything before it, then a little more: what was due has arrived by then. */
async function settle(): Promise<void> {
  const sentinel = `sentinel-${randomUUID()}`;
  expect((await request('PUT', `/transport-resource/${sentinel}`, truckBody())).statusCode).toBe(201);
  await waitFor('the sentinel event', async () => eventsOf(sentinel).length > 0);
  await sleep(300);
}

/**
 * Sends the ten writes at once, each with the same If-Match and a body of its own; checks that one
 * won and nine got 412, and returns the index of the winner.
 */
async function race(path: string, bodyOf: (writer: number) => object, ifMatch: string): Promise<number> {
  const responses = await Promise.all(Array.from({ length: WRITERS }, (_, writer) => request('PUT', path, bodyOf(writer), { 'if-match': ifMatch })));
  const statuses = responses.map((response) => response.statusCode);
  expect(statuses.filter((status) => status === 200), String(statuses)).toHaveLength(1);
  expect(statuses.filter((status) => status === 412), String(statuses)).toHaveLength(WRITERS - 1);
  for (const response of responses.filter(({ statusCode }) => statusCode === 412)) {
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  }
  return statuses.indexOf(200);
}

describe('concurrent conditional writes', () => {
  it('let exactly one of ten PUTs of a transport resource with the same If-Match win', async () => {
    const id = `truck-${randomUUID()}`;
    const path = `/transport-resource/${id}`;
    await request('PUT', path, truckBody());
    expect((await request('PUT', path, truckBody({ labels: ['v2'] }))).headers.etag).toBe('W/"2"');

    const bodyOf = (writer: number) => truckBody({ labels: [`writer-${writer}`] });
    const winner = await race(path, bodyOf, 'W/"2"');
    const final = await request('GET', path);
    expect(final.headers.etag).toBe('W/"3"');
    expect(json(final)).toEqual({ business_id: id, ...bodyOf(winner), inactive: false, version: 3 });

    await settle();
    expect(eventsOf(id).map((event) => [event.type, event.version])).toEqual([
      ['transport-resource.created', 1],
      ['transport-resource.updated', 2],
      ['transport-resource.updated', 3],
    ]);
    expect(eventsOf(id)[2]?.data).toEqual(json(final));
  });

  it('let exactly one of ten PUTs of an unavailability with the same If-Match win', async () => {
    const truck = `truck-${randomUUID()}`;
    await request('PUT', `/transport-resource/${truck}`, truckBody());
    const id = randomUUID();
    const path = `/transport-resource/${truck}/unavailability/${id}`;
    expect((await request('PUT', path, { from: '2031-05-01T08:00:00Z', to: '2031-05-01T10:00:00Z' })).statusCode).toBe(201);

    const bodyOf = (writer: number) => ({ from: '2031-05-01T08:00:00Z', to: '2031-05-01T10:00:00Z', description: `writer-${writer}` });
    const winner = await race(path, bodyOf, 'W/"1"');
    const final = await request('GET', path);
    expect(final.headers.etag).toBe('W/"2"');
    expect(json(final)).toEqual({ id, transport_resource_id: truck, ...bodyOf(winner), version: 2 });

    await settle();
    const entityId = `${truck}/${id}`;
    expect(eventsOf(entityId).map((event) => [event.type, event.version])).toEqual([
      ['transport-resource-unavailability.created', 1],
      ['transport-resource-unavailability.updated', 2],
    ]);
    expect(eventsOf(entityId)[1]?.data).toEqual(json(final));
  });

  it('create a new transport resource once when ten unconditional PUTs race: one 201, nine 200, each a version of its own', async () => {
    const id = `truck-${randomUUID()}`;
    const path = `/transport-resource/${id}`;
    const responses = await Promise.all(Array.from({ length: WRITERS }, (_, writer) => request('PUT', path, truckBody({ labels: [`w-${writer}`] }))));
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 201), String(statuses)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200), String(statuses)).toHaveLength(WRITERS - 1);
    const versions = responses.map((response) => json<{ version: number }>(response).version);
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: WRITERS }, (_, index) => index + 1));
    expect(versions[statuses.indexOf(201)]).toBe(1);
    expect(json(await request('GET', path))).toMatchObject({ version: WRITERS });
    await settle();
    expect(eventsOf(id).map((event) => [event.type, event.version])).toEqual([
      ['transport-resource.created', 1],
      ...Array.from({ length: WRITERS - 1 }, (_, index) => ['transport-resource.updated', index + 2]),
    ]);
  });
});
