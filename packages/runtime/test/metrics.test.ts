import { Type, type Static } from '@sinclair/typebox';
import { createTestServiceEnv, parseMetricSamples, startNatsServer, uniqueName, waitFor } from '@rm/testkit';
import type { NatsServerHandle, TestServiceEnv } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineService, startService, type RunningService } from '../src/index.js';
import { GADGET_EVENTS, GADGETS_NATS_USER, gadgetsService } from './fixtures/gadgets-service.js';

const BASE = '/resource-management/v1';
const INSPECTIONS = 'gadgets-inspections';

/** Gadget events the inspection consumer holds until the test lets them go. */
const held = { until: Promise.resolve(), release: () => {} };
function holdInspections(): void {
  held.until = new Promise<void>((resolve) => (held.release = resolve));
}

const Colour = Type.Object({ colour: Type.String() });

/**
 * The gadgets service with one more consumer of its gadget events: a `poison` gadget always fails it,
 * and a `held` one waits for the test; one message per batch, so that a held one leaves the others pending.
 */
const inspectedGadgetsService = defineService({
  ...gadgetsService,
  consumers: (context) => [
    ...(gadgetsService.consumers?.(context) ?? []),
    {
      durable: INSPECTIONS,
      entities: [GADGET_EVENTS],
      maxDeliver: 2,
      nakDelaysMs: [10],
      batchSize: 1,
      handle: async (event) => {
        const { colour } = event.data as Static<typeof Colour>;
        if (colour === 'poison') throw new Error('this gadget cannot be inspected');
        if (colour === 'held') await held.until;
      },
    },
  ],
});

describe('a service\'s metrics', () => {
  let nats: NatsServerHandle;
  let env: TestServiceEnv;
  let service: RunningService<ReturnType<typeof gadgetsService.collections>, NonNullable<typeof gadgetsService.config>>;
  const tenant = uniqueName('tenant');

  const scrape = async () => {
    const response = await service.app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    return parseMetricSamples(response.body);
  };
  const put = async (key: string, colour: unknown) =>
    service.app.inject({ method: 'PUT', url: `${BASE}/gadget/${key}`, headers: await env.bearer(tenant), payload: { colour } });

  beforeAll(async () => {
    // a NATS server of its own, which the outbox test takes away
    nats = await startNatsServer();
    env = await createTestServiceEnv('runtime_metrics', { ...GADGETS_NATS_USER, NATS_URL: nats.url, SERVICE_VERSION: '9.9.9' });
    service = await startService(inspectedGadgetsService, { env: env.variables, listen: false });
  });

  afterAll(async () => {
    held.release();
    await service?.stop();
    await env?.close();
    await nats?.stop();
  });

  it('are served at /metrics without a token, each labelled with the service, with its version and its connections up', async () => {
    const samples = await scrape();
    expect(samples.value('rm_build_info', { service: 'gadgets', version: '9.9.9' })).toBe(1);
    expect(samples.value('rm_mongodb_up', { service: 'gadgets' })).toBe(1);
    expect(samples.value('rm_nats_up', { service: 'gadgets' })).toBe(1);
    expect(samples.value('rm_outbox_backlog_events', { service: 'gadgets' })).toBe(0);
    expect(samples.value('rm_outbox_oldest_event_age_seconds', { service: 'gadgets' })).toBe(0);
    expect(samples.value('rm_dead_letters_total', { consumer: INSPECTIONS })).toBe(0);
    for (const consumer of ['gadgets-sightings', INSPECTIONS]) expect(samples.value('rm_consumer_pending_messages', { consumer })).toBe(0);
    expect(samples.value('nodejs_eventloop_lag_seconds', { service: 'gadgets' })).toBeDefined();
  });

  it('count a failed request by its route and status', async () => {
    const labels = { method: 'PUT', route: `${BASE}/gadget/:id`, status_code: '400' };
    const before = (await scrape()).value('http_requests_total', labels) ?? 0;
    expect((await put('g-bad', 42)).statusCode).toBe(400);
    expect((await scrape()).value('http_requests_total', labels)).toBe(before + 1);
  });

  it('count each event a consumer handled by its outcome, and a dead letter once an event failed every attempt', async () => {
    expect((await put('g-fine', 'green')).statusCode).toBe(201);
    expect((await put('g-poison', 'poison')).statusCode).toBe(201);
    // the two consumers go at their own pace: the sightings may come after the dead letter
    const samples = await waitFor('the dead letter and both sightings', async () => {
      const found = await scrape();
      const sightings = found.value('rm_consumer_events_total', { consumer: 'gadgets-sightings', outcome: 'applied' }) ?? 0;
      return found.value('rm_dead_letters_total', { consumer: INSPECTIONS }) === 1 && sightings >= 2 ? found : undefined;
    });
    expect(samples.value('rm_consumer_events_total', { consumer: INSPECTIONS, outcome: 'applied' })).toBeGreaterThanOrEqual(1);
    // the first attempt was retried, the second dead-lettered
    expect(samples.value('rm_consumer_events_total', { consumer: INSPECTIONS, outcome: 'failed' })).toBe(2);
    expect(samples.value('rm_consumer_handling_duration_seconds_count', { consumer: INSPECTIONS })).toBeGreaterThanOrEqual(3);
  });

  it('show what a consumer has not yet acknowledged or received while it is busy, and nothing once it caught up', async () => {
    holdInspections();
    expect((await put('g-held', 'held')).statusCode).toBe(201);
    for (const key of ['g-next-1', 'g-next-2', 'g-next-3', 'g-next-4']) expect((await put(key, 'blue')).statusCode).toBe(201);
    await waitFor('messages pending behind the held one', async () => {
      const samples = await scrape();
      const pending = samples.value('rm_consumer_pending_messages', { consumer: INSPECTIONS }) ?? 0;
      return pending >= 1 && (samples.value('rm_consumer_ack_pending_messages', { consumer: INSPECTIONS }) ?? 0) >= 1;
    });
    held.release();
    await waitFor('the consumer to catch up', async () => {
      const samples = await scrape();
      const names = ['rm_consumer_pending_messages', 'rm_consumer_ack_pending_messages'];
      const counts = names.map((name) => samples.value(name, { consumer: INSPECTIONS }));
      return counts.every((count) => count === 0);
    });
  });

  it('show an event waiting in the outbox while NATS is away, with its age, and none once it went out', { timeout: 120_000 }, async () => {
    await nats.kill();
    await waitFor('NATS to be seen down', async () => (await scrape()).value('rm_nats_up') === 0);
    expect((await put('g-waiting', 'grey')).statusCode).toBe(201);
    const waiting = await waitFor('the event to wait a while', async () => {
      const samples = await scrape();
      return (samples.value('rm_outbox_oldest_event_age_seconds') ?? 0) > 0 ? samples : undefined;
    });
    expect(waiting.value('rm_outbox_backlog_events')).toBeGreaterThanOrEqual(1);
    expect(waiting.value('rm_mongodb_up')).toBe(1);

    await nats.start();
    const drained = await waitFor(
      'the outbox to drain',
      async () => {
        const samples = await scrape();
        return samples.value('rm_outbox_backlog_events') === 0 ? samples : undefined;
      },
      90_000,
    );
    expect(drained.value('rm_outbox_oldest_event_age_seconds')).toBe(0);
    expect(drained.value('rm_nats_up')).toBe(1);
  });
});
