import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMetricSamples, waitFor } from '@rm/testkit';
import { BASE, employeeEvents, freshTenant, startReceiver, startWebhooks, type Webhooks } from './helpers.js';

/** Deliveries a tenant's subscription may have pending in this file's service. */
const MAX_PENDING = 3;
/** How long this file's service tries a delivery. */
const RETRY_FOR_MS = 1_000;

let webhooks: Webhooks;
let events: Awaited<ReturnType<typeof employeeEvents>>;
let mongo: MongoClient;
const receivers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  // one attempt of a tenant at a time, hanging for as long as an attempt may: the rest of its deliveries wait
  webhooks = await startWebhooks({
    WEBHOOK_CONCURRENCY_PER_TENANT: '1',
    WEBHOOK_TIMEOUT_MS: '60000',
    WEBHOOK_RETRY_FOR_MS: String(RETRY_FOR_MS),
    WEBHOOK_MAX_PENDING_PER_SUBSCRIPTION: String(MAX_PENDING),
  });
  events = await employeeEvents();
  mongo = new MongoClient(webhooks.env.variables.MONGO_URL!);
});

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await events?.close();
  await webhooks?.close();
  await mongo?.close();
});

async function hangingReceiver() {
  const started = await startReceiver(() => 'hang');
  receivers.push(started);
  return started;
}

async function call(tenant: string, method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  const response = await webhooks.app.inject({ method, url: `${BASE}${path}`, headers: await webhooks.as(tenant), ...(body === undefined ? {} : { payload: body as object }) });
  return { status: response.statusCode, body: response.body === '' ? undefined : (JSON.parse(response.body) as Record<string, unknown>) };
}

async function subscribe(tenant: string, id: string, url: string): Promise<void> {
  expect((await call(tenant, 'PUT', `/webhook-subscription/${id}`, { url, types: ['employee.*'] })).status).toBe(201);
}

async function attemptLog(tenant: string, id: string) {
  return (await call(tenant, 'GET', `/webhook-subscription/${id}/deliveries`)).body!.deliveries as { webhook_id: string; outcome: string; error?: string; status?: number }[];
}

/** The webhook ids of the tenant's deliveries stored and not yet made. */
async function stored(tenant: string): Promise<string[]> {
  const documents = await mongo.db(webhooks.env.variables.MONGO_DB).collection('webhook_deliveries').find({ tenant }).toArray();
  return documents.map(({ webhook_id }) => webhook_id as string).sort();
}

async function dropped(reason: string): Promise<number> {
  return parseMetricSamples((await webhooks.app.inject({ url: '/metrics' })).body).value('rm_webhook_deliveries_dropped_total', { reason }) ?? 0;
}

describe('the backlog of a receiver that does not answer', () => {
  it('gives a delivery up its retry period after it was made, even one never tried', async () => {
    const tenant = freshTenant();
    const hook = await hangingReceiver();
    await subscribe(tenant, 'clock', hook.url);
    const held = await events.publish(tenant, 'c1');
    await waitFor('the first attempt hanging', async () => hook.received.length === 1);
    const untried = await events.publish(tenant, 'c2');
    await waitFor('the second delivery stored', async () => (await stored(tenant)).length === 2);
    // the retry period passes while the tenant's one attempt hangs; then that attempt fails
    await sleep(RETRY_FOR_MS);
    hook.cut();

    const log = await waitFor('both deliveries given up', async () => {
      const entries = await attemptLog(tenant, 'clock');
      return entries.length === 2 ? entries : undefined;
    });
    expect(log).toEqual([
      expect.objectContaining({ webhook_id: untried.id, outcome: 'gave-up', error: 'its retry period ended before an attempt of its tenant was free' }),
      expect.objectContaining({ webhook_id: held.id, outcome: 'gave-up' }),
    ]);
    expect(log[0]).not.toHaveProperty('status');
    expect(hook.received.map(({ headers }) => headers['webhook-id'])).toEqual([held.id]);
    expect(await stored(tenant)).toEqual([]);
  });

  it(`keeps at most ${MAX_PENDING} deliveries of a subscription, dropping the oldest waiting ones and saying so`, async () => {
    const tenant = freshTenant();
    const hook = await hangingReceiver();
    await subscribe(tenant, 'full', hook.url);
    const droppedBefore = await dropped('backlog-full');
    const published = [];
    for (let index = 0; index < 6; index += 1) published.push((await events.publish(tenant, `f${index}`)).id);

    const log = await waitFor('three deliveries dropped', async () => {
      const entries = await attemptLog(tenant, 'full');
      return entries.length === 3 ? entries : undefined;
    });
    for (const entry of log) expect(entry).toMatchObject({ outcome: 'dropped', error: `more than ${MAX_PENDING} deliveries were waiting; the oldest were dropped` });
    const droppedIds = log.map(({ webhook_id }) => webhook_id);
    // the oldest: of the first four, the one whose attempt is under way (if any) stays
    expect(published.slice(0, 4)).toEqual(expect.arrayContaining(droppedIds));
    expect(await stored(tenant)).toEqual(published.filter((id) => !droppedIds.includes(id)).sort());
    expect((await dropped('backlog-full')) - droppedBefore).toBe(3);
    hook.cut();
  });

  it('drops what a subscription has waiting as soon as it is disabled or deleted', async () => {
    const [off, gone] = [freshTenant(), freshTenant()];
    const hooks = { off: await hangingReceiver(), gone: await hangingReceiver() };
    await subscribe(off, 'off', hooks.off.url);
    await subscribe(gone, 'gone', hooks.gone.url);
    const before = { disabled: await dropped('disabled'), deleted: await dropped('deleted') };
    const published: Record<string, string[]> = { off: [], gone: [] };
    for (let index = 0; index < 3; index += 1) {
      published.off!.push((await events.publish(off, `o${index}`)).id);
      published.gone!.push((await events.publish(gone, `g${index}`)).id);
    }
    await waitFor('one attempt of each hanging, the others stored', async () =>
      hooks.off.received.length === 1 && hooks.gone.received.length === 1 && (await stored(off)).length === 3 && (await stored(gone)).length === 3,
    );
    const underWay = (tenant: 'off' | 'gone') => hooks[tenant].received[0]!.headers['webhook-id'] as string;

    const disabled = await call(off, 'PUT', '/webhook-subscription/off', { url: hooks.off.url, types: ['employee.*'], enabled: false });
    expect(disabled.status).toBe(200);
    expect((await call(gone, 'DELETE', '/webhook-subscription/gone')).status).toBe(204);

    // only the attempts under way are left, hanging still
    await waitFor('the waiting deliveries dropped', async () => (await stored(off)).length === 1 && (await stored(gone)).length === 1);
    expect(await stored(off)).toEqual([underWay('off')]);
    expect(await stored(gone)).toEqual([underWay('gone')]);
    const log = await waitFor('the drops logged', async () => {
      const entries = await attemptLog(off, 'off');
      return entries.length === 2 ? entries : undefined;
    });
    expect(log.map(({ webhook_id }) => webhook_id).sort()).toEqual(published.off!.filter((id) => id !== underWay('off')).sort());
    for (const entry of log) expect(entry).toMatchObject({ outcome: 'dropped', error: 'the subscription is disabled' });
    expect((await dropped('disabled')) - before.disabled).toBe(2);
    expect((await dropped('deleted')) - before.deleted).toBe(2);
    expect(hooks.off.received).toHaveLength(1);
    expect(hooks.gone.received).toHaveLength(1);
    hooks.off.cut();
    hooks.gone.cut();
  });
});
