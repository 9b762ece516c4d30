import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMetricSamples, waitFor } from '@rm/testkit';
import { startService } from '@rm/runtime';
import { webhooksService } from '../src/app.js';
import { verifySignature } from '../src/domain/signature.js';
import { BASE, employeeEvents, freshTenant, startReceiver, startWebhooks, type Received, type Webhooks } from './helpers.js';

let webhooks: Webhooks;
let events: Awaited<ReturnType<typeof employeeEvents>>;
const receivers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  // a subscription failing for 2 s is disabled; a delivery is tried for 1.5 s
  webhooks = await startWebhooks({ WEBHOOK_DISABLE_AFTER_MS: '2000', WEBHOOK_RETRY_FOR_MS: '1500', WEBHOOK_CONCURRENCY_PER_TENANT: '2' });
  events = await employeeEvents();
});

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await events?.close();
  await webhooks?.close();
});

const webhookIds = (received: Received[]) => received.map(({ headers }) => headers['webhook-id']);

async function pendingDeliveries(service: Webhooks): Promise<number | undefined> {
  return parseMetricSamples((await service.app.inject({ url: '/metrics' })).body).value('rm_webhook_deliveries_pending');
}

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

async function call(tenant: string, method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}, service = webhooks) {
  const response = await service.app.inject({
    method,
    url: `${BASE}${path}`,
    headers: { ...(await service.as(tenant)), ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: response.statusCode, headers: response.headers, body: response.body === '' ? undefined : (JSON.parse(response.body) as Record<string, unknown>) };
}

async function subscribe(tenant: string, id: string, url: string, types = ['employee.*'], service = webhooks) {
  const created = await call(tenant, 'PUT', `/webhook-subscription/${id}`, { url, types }, {}, service);
  expect(created.status).toBe(201);
  return created.body!.secret as string;
}

describe('webhook subscriptions', () => {
  it('shows the secret once, when created, and keeps it through a replace', async () => {
    const tenant = freshTenant();
    const created = await call(tenant, 'PUT', '/webhook-subscription/orders', { url: 'https://hooks.example.com/rm', types: ['employee.*'], description: 'HR sync' });
    expect(created.status).toBe(201);
    expect(created.headers.etag).toBe('W/"1"');
    expect(created.headers.location).toMatch(/\/webhook-subscription\/orders$/);
    expect(created.body).toEqual({
      id: 'orders',
      url: 'https://hooks.example.com/rm',
      types: ['employee.*'],
      description: 'HR sync',
      enabled: true,
      version: 1,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });

    const read = await call(tenant, 'GET', '/webhook-subscription/orders');
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body).toMatchObject({ id: 'orders', version: 1 });

    const replaced = await call(tenant, 'PUT', '/webhook-subscription/orders', { url: 'https://hooks.example.com/rm2', types: ['resource-combination.*'] }, { 'if-match': 'W/"1"' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ id: 'orders', url: 'https://hooks.example.com/rm2', types: ['resource-combination.*'], enabled: true, version: 2 });

    const stale = await call(tenant, 'PUT', '/webhook-subscription/orders', { url: 'https://hooks.example.com/rm', types: ['employee.*'] }, { 'if-match': 'W/"1"' });
    expect(stale.status).toBe(412);
    expect((await call(freshTenant(), 'GET', '/webhook-subscription/orders')).status).toBe(404);
  });

  it('lists the tenant\'s subscriptions by page, and deletes one', async () => {
    const tenant = freshTenant();
    for (const id of ['a', 'b', 'c']) await call(tenant, 'PUT', `/webhook-subscription/${id}`, { url: 'https://hooks.example.com/x', types: ['employee.created'] });
    const first = await call(tenant, 'GET', '/webhook-subscription?limit=2');
    expect((first.body!.webhook_subscriptions as { id: string }[]).map(({ id }) => id)).toEqual(['a', 'b']);
    const next = (first.body!.cursors as { next: string }).next;
    const second = await call(tenant, 'GET', `/webhook-subscription?limit=2&cursor=${encodeURIComponent(next)}`);
    expect((second.body!.webhook_subscriptions as { id: string }[]).map(({ id }) => id)).toEqual(['c']);
    expect(second.body!.cursors).not.toHaveProperty('next');

    expect((await call(tenant, 'DELETE', '/webhook-subscription/b')).status).toBe(204);
    expect((await call(tenant, 'GET', '/webhook-subscription/b')).status).toBe(404);
    expect((await call(tenant, 'DELETE', '/webhook-subscription/b')).status).toBe(404);
  });

  it('refuses a URL or a type it cannot deliver to, naming the field', async () => {
    const tenant = freshTenant();
    const badUrl = await call(tenant, 'PUT', '/webhook-subscription/x', { url: 'ftp://hooks.example.com', types: ['truck.created'] });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body!.violations).toEqual([
      { field: 'url', message: 'must be an http or https URL' },
      { field: 'types', message: expect.stringContaining('"truck.created"') },
    ]);
    const unknownField = await call(tenant, 'PUT', '/webhook-subscription/x', { url: 'https://hooks.example.com', types: ['employee.*'], secret: 'mine' });
    expect(unknownField.status).toBe(400);
    expect((await call(tenant, 'GET', '/webhook-subscription/x')).status).toBe(404);
  });
});

describe('deliveries', () => {
  it('POSTs each change as the feed shows it, signed as Standard Webhooks', async () => {
    const tenant = freshTenant();
    const hook = await receiver();
    const secret = await subscribe(tenant, 'hr', hook.url);
    const event = await events.publish(tenant, 'e1');
    await events.publish(freshTenant(), 'e1');

    const [delivery] = await waitFor('the delivery', async () => (hook.received.length > 0 ? hook.received : undefined));
    const { tenant: _tenant, ...shown } = event;
    expect(JSON.parse(delivery!.body)).toEqual(shown);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['webhook-id']).toBe(event.id);
    expect(verifySignature(secret, delivery!.headers as Record<string, string>, delivery!.body)).toBe(true);
    expect(verifySignature(`whsec_${Buffer.alloc(32).toString('base64')}`, delivery!.headers as Record<string, string>, delivery!.body)).toBe(false);

    const log = await waitFor('the attempt logged', async () => {
      const { body } = await call(tenant, 'GET', '/webhook-subscription/hr/deliveries');
      return (body!.deliveries as unknown[]).length > 0 ? (body!.deliveries as Record<string, unknown>[]) : undefined;
    });
    expect(log).toEqual([expect.objectContaining({ webhook_id: event.id, event_type: 'employee.created', entity_id: 'e1', attempt: 1, outcome: 'delivered', status: 204 })]);
    expect(hook.received).toHaveLength(1);

    const metrics = parseMetricSamples((await webhooks.app.inject({ url: '/metrics' })).body);
    expect(metrics.value('rm_webhook_attempts_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(metrics.value('rm_webhook_start_delay_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(metrics.value('rm_webhook_deliveries_pending')).toBeGreaterThanOrEqual(0);
  });

  it('tries a failed delivery again with the same webhook-id, and gives up after the retry period', async () => {
    const tenant = freshTenant();
    const flaky = await receiver((count) => (count <= 2 ? 500 : 200));
    await subscribe(tenant, 'flaky', flaky.url);
    const event = await events.publish(tenant, 'e2');
    await waitFor('three attempts', async () => flaky.received.length >= 3);
    expect(flaky.received.map(({ headers }) => headers['webhook-id'])).toEqual([event.id, event.id, event.id]);
    const { body } = await waitFor('the log', async () => {
      const read = await call(tenant, 'GET', '/webhook-subscription/flaky/deliveries');
      return (read.body!.deliveries as unknown[]).length === 3 ? read : undefined;
    });
    expect((body!.deliveries as { outcome: string; attempt: number; status: number }[]).map(({ outcome, attempt, status }) => [outcome, attempt, status])).toEqual([
      ['delivered', 3, 200],
      ['failed', 2, 500],
      ['failed', 1, 500],
    ]);

    const dead = await receiver(() => 503);
    await subscribe(tenant, 'dead', dead.url, ['employee.updated']);
    await events.publish(tenant, 'e2', 2);
    const gaveUp = await waitFor('giving up', async () => {
      const read = await call(tenant, 'GET', '/webhook-subscription/dead/deliveries');
      const [latest] = read.body!.deliveries as { outcome: string }[];
      return latest?.outcome === 'gave-up' ? read.body!.deliveries : undefined;
    });
    expect((gaveUp as unknown[]).length).toBeGreaterThan(1);
  });

  it('disables a subscription whose deliveries keep failing, saying why, and starts again when enabled', async () => {
    const tenant = freshTenant();
    let failing = true;
    const hook = await receiver(() => (failing ? 500 : 204));
    await subscribe(tenant, 'sick', hook.url);
    // events keep coming while every attempt fails, for longer than WEBHOOK_DISABLE_AFTER_MS
    const disabled = await waitFor('the subscription disabled', async () => {
      await events.publish(tenant, `e-${Date.now()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { body } = await call(tenant, 'GET', '/webhook-subscription/sick');
      return body!.enabled === false ? body : undefined;
    });
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('set enabled to true') });

    failing = false;
    const enabled = await call(tenant, 'PUT', '/webhook-subscription/sick', { url: hook.url, types: ['employee.*'], enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true });
    expect(enabled.body).not.toHaveProperty('disabled_reason');
    const event = await events.publish(tenant, 'e-after');
    await waitFor('a delivery after re-enabling', async () => hook.received.some(({ headers }) => headers['webhook-id'] === event.id));
  });

  it('keeps what it has still to deliver across a restart', async () => {
    // its own service, with one attempt of a tenant at a time, and a second attempt a minute after the first
    const own = await startWebhooks({ WEBHOOK_CONCURRENCY_PER_TENANT: '1', WEBHOOK_RETRY_FIRST_DELAY_MS: '60000' });
    try {
      const tenant = freshTenant();
      let up = false;
      const hook = await receiver(() => (up ? 204 : 'hang'));
      expect((await call(tenant, 'PUT', '/webhook-subscription/restart', { url: hook.url, types: ['employee.*'] }, {}, own)).status).toBe(201);
      await events.publish(tenant, 'e-held');
      const waiting = await events.publish(tenant, 'e-waiting');
      // the first attempt hangs; the second delivery is stored and waits for the tenant's one attempt
      await waitFor('both deliveries planned', async () => {
        const metrics = parseMetricSamples((await own.app.inject({ url: '/metrics' })).body);
        return hook.received.length === 1 && metrics.value('rm_webhook_deliveries_pending') === 2;
      });
      await own.service.stop();

      up = true;
      // the same database, as a replaced pod finds it
      const again = await startService(webhooksService, { env: own.env.variables });
      try {
        await waitFor('the waiting delivery after the restart', async () => hook.received.some(({ headers }) => headers['webhook-id'] === waiting.id));
      } finally {
        await again.stop();
      }
    } finally {
      await own.env.close();
    }
  });

  it('delivers every change once to a receiver that was dead across several retries, once it is back (issue 29, scaled down)', async () => {
    // its own service, with the default retry period and a first retry 50 ms after the first attempt
    // (then 0.2, 0.8, 3.2 s later, ±25 %): the receiver refuses four attempts of each change, as an hour's
    // outage refuses the first six at the default first delay of 5 s (at 0, 5, 25, 105, 425, 1,705 s)
    const own = await startWebhooks({ WEBHOOK_RETRY_FIRST_DELAY_MS: '50' });
    try {
      const tenant = freshTenant();
      let up = false;
      const statuses: number[] = [];
      const hook = await receiver((count) => (statuses[count - 1] = up ? 204 : 503));
      await subscribe(tenant, 'dead-a-while', hook.url, ['employee.*'], own);
      const published: { id: string }[] = [];
      for (let n = 0; n < 10; n += 1) published.push(await events.publish(tenant, `dead-${n}`));
      const attemptsOf = (id: string) => webhookIds(hook.received).filter((received) => received === id).length;
      await waitFor('each change tried and refused four times', async () => published.every((event) => attemptsOf(event.id) >= 4));

      up = true;
      const delivered = () => webhookIds(hook.received.filter((_, index) => statuses[index] === 204));
      await waitFor('every change delivered', async () => delivered().length >= published.length);
      await waitFor('nothing left to deliver', async () => (await pendingDeliveries(own)) === 0);
      expect(delivered().toSorted()).toEqual(published.map((event) => event.id).toSorted());
    } finally {
      await own.close();
    }
  });

  it("delivers a tenant's changes while another tenant's receiver hangs", async () => {
    const slow = freshTenant();
    const quick = freshTenant();
    const hanging = await receiver(() => 'hang');
    const fine = await receiver();
    await subscribe(slow, 'hangs', hanging.url);
    await subscribe(quick, 'fine', fine.url);
    for (let index = 0; index < 10; index += 1) await events.publish(slow, `s${index}`);
    await waitFor('the slow tenant holding its attempts', async () => hanging.received.length >= 2);
    const event = await events.publish(quick, 'q1');
    await waitFor('the quick delivery', async () => fine.received.some(({ headers }) => headers['webhook-id'] === event.id));
    // the slow tenant had two attempts under way at a time (its limit) and had not got through its backlog
    expect(hanging.received.length).toBeLessThan(10);
  });

  it("delivers a tenant's changes while another tenant's receiver on the same host and port hangs", async () => {
    // its own service: 4 attempts of a tenant at once, each hanging for as long as an attempt may
    const own = await startWebhooks({ WEBHOOK_CONCURRENCY_PER_TENANT: '4', WEBHOOK_TIMEOUT_MS: '60000' });
    const shared = await startReceiver((_count, path) => (path.endsWith('/slow') ? 'hang' : 204));
    try {
      const [slow, quick] = [freshTenant(), freshTenant()];
      await subscribe(slow, 'slow', `${shared.url}/slow`, ['employee.*'], own);
      await subscribe(quick, 'quick', `${shared.url}/quick`, ['employee.*'], own);
      for (let index = 0; index < 6; index += 1) await events.publish(slow, `s${index}`);
      const hanging = () => shared.received.filter(({ path }) => path.endsWith('/slow'));
      await waitFor('the slow tenant holding all its attempts', async () => hanging().filter(({ open }) => open).length === 4);

      const sent: string[] = [];
      for (let index = 0; index < 3; index += 1) sent.push((await events.publish(quick, `q${index}`)).id);
      await waitFor("the quick tenant's deliveries", async () => sent.every((id) => webhookIds(shared.received).includes(id)));
      // they came while every one of the slow tenant's attempts still hung on the same host and port
      expect(hanging().map(({ open }) => open)).toEqual([true, true, true, true]);
    } finally {
      await shared.close();
      await own.close();
    }
  });

  it('honours a subscription created, changed or deleted through the API from the very next event', async () => {
    // its own service: what it has pending is this test's only
    const own = await startWebhooks();
    try {
      const tenant = freshTenant();
      const [first, second, moved] = [await receiver(), await receiver(), await receiver()];
      await subscribe(tenant, 'first', first.url, ['employee.created'], own);
      const created = await events.publish(tenant, 'n1');
      await waitFor('the first delivery', async () => webhookIds(first.received).includes(created.id));

      await subscribe(tenant, 'second', second.url, ['employee.*'], own);
      const afterCreate = await events.publish(tenant, 'n2');
      await waitFor('a delivery to the subscription just created', async () => webhookIds(second.received).includes(afterCreate.id));

      const changed = await call(tenant, 'PUT', '/webhook-subscription/first', { url: moved.url, types: ['employee.updated'] }, { 'if-match': 'W/"1"' }, own);
      expect(changed.status).toBe(200);
      const afterChange = await events.publish(tenant, 'n2', 2);
      await waitFor("the changed subscription's delivery, to its new URL", async () => webhookIds(moved.received).includes(afterChange.id));

      expect((await call(tenant, 'DELETE', '/webhook-subscription/second', undefined, {}, own)).status).toBe(204);
      const afterDelete = await events.publish(tenant, 'n2', 3);
      await waitFor("the remaining subscription's delivery", async () => webhookIds(moved.received).includes(afterDelete.id));
      await waitFor('nothing left to deliver', async () => (await pendingDeliveries(own)) === 0);

      expect(webhookIds(first.received)).toEqual([created.id, afterCreate.id]);
      expect(webhookIds(second.received)).toEqual([afterCreate.id, afterChange.id]);
      expect(webhookIds(moved.received)).toEqual([afterChange.id, afterDelete.id]);
    } finally {
      await own.close();
    }
  });
});
