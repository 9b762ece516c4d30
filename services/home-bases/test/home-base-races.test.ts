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

const WRITERS = 10;

function request(method: 'GET' | 'PUT', path: string, payload?: object, extra: Record<string, string> = {}) {
  return harness.app.inject({ method, url: `${BASE}${path}`, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload }) });
}

const eventsOf = (entityId: string) => events.received.filter(({ event }) => event.entity_id === entityId).map(({ event }) => event);

/** Waits for a write made after everything before it, then a little more: what was due has arrived by then. */
async function settle(): Promise<void> {
  const sentinel = `sentinel-${randomUUID()}`;
  expect((await request('PUT', `/home-base/${sentinel}`, homeBaseBody())).statusCode).toBe(201);
  await waitFor('the sentinel event', async () => eventsOf(sentinel).length > 0);
  await sleep(300);
}

describe('concurrent conditional writes', () => {
  it('let exactly one of ten PUTs of a home base with the same If-Match win', async () => {
    const id = `hb-${randomUUID()}`;
    const path = `/home-base/${id}`;
    expect((await request('PUT', path, homeBaseBody())).headers.etag).toBe('W/"1"');

    const bodyOf = (writer: number) => homeBaseBody({ plan_group: `writer-${writer}` });
    const responses = await Promise.all(Array.from({ length: WRITERS }, (_, writer) => request('PUT', path, bodyOf(writer), { 'if-match': 'W/"1"' })));
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200), String(statuses)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412), String(statuses)).toHaveLength(WRITERS - 1);
    for (const response of responses.filter(({ statusCode }) => statusCode === 412)) {
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const winner = statuses.indexOf(200);

    const final = await request('GET', path);
    expect(final.headers.etag).toBe('W/"2"');
    expect(json(final)).toEqual({ business_id: id, ...bodyOf(winner), version: 2 });
    expect(json(responses[winner]!)).toEqual(json(final));

    await settle();
    expect(eventsOf(id).map((event) => [event.type, event.version])).toEqual([
      ['home-base.created', 1],
      ['home-base.updated', 2],
    ]);
    expect(eventsOf(id)[1]?.data).toEqual(json(final));
  });
});
