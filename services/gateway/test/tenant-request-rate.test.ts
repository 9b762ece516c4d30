import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '@rm/bus';
import { createLogger } from '@rm/service-kit';
import { testNatsPassword, testServers, uniqueName } from '@rm/testkit';
import { startTenantRequestRate, TENANT_REQUESTS_SUBJECT, type TenantRequestRate } from '../src/limits/tenant-request-rate.js';

const logger = createLogger({ level: 'silent', name: 'rate-test' });
const connections: NatsConnection[] = [];
const rates: TenantRequestRate[] = [];

afterAll(async () => {
  await Promise.all(rates.map((rate) => rate.stop()));
  await Promise.all(connections.map((nc) => nc.close()));
});

/** A connection as the gateway's own NATS user, whose grants must allow the reports. */
async function gatewayConnection(): Promise<NatsConnection> {
  const nc = await connectNats({ servers: testServers().natsUrl, access: { user: 'gateway', password: testNatsPassword() }, name: 'rate-test', logger, attempts: 1 });
  connections.push(nc);
  return nc;
}

/** A replica's counter on a clock the test moves. */
async function replica(clock: { now: number }): Promise<{ rate: TenantRequestRate; nc: NatsConnection }> {
  const nc = await gatewayConnection();
  const rate = startTenantRequestRate({ nc, logger, now: () => clock.now });
  rates.push(rate);
  return { rate, nc };
}

function takeMany(rate: TenantRequestRate, tenant: string, times: number, limit: number): boolean[] {
  return Array.from({ length: times }, () => rate.take(tenant, limit).admitted);
}

/** Lets the replicas' reports (every tenth of a second) go out, and every connection hear what the server has routed. */
async function reportsHeard(...ncs: NatsConnection[]): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 250));
  for (const nc of ncs) await nc.flush();
}

describe('the tenant request rate', () => {
  let clock: { now: number };
  let one: Awaited<ReturnType<typeof replica>>;
  let other: Awaited<ReturnType<typeof replica>>;

  beforeAll(async () => {
    clock = { now: 1_000_000_000_000 };
    one = await replica(clock);
    other = await replica(clock);
  });

  it('admits up to the limit in a second, tells what is left, and admits again once the second has passed', () => {
    const tenant = uniqueName('t');
    expect(one.rate.take(tenant, 3)).toEqual({ admitted: true, remaining: 2 });
    expect(one.rate.take(tenant, 3)).toEqual({ admitted: true, remaining: 1 });
    expect(one.rate.take(tenant, 3)).toEqual({ admitted: true, remaining: 0 });
    expect(one.rate.take(tenant, 3)).toEqual({ admitted: false, remaining: 0, retryAfterSeconds: 1 });
    expect(one.rate.take(uniqueName('other-tenant'), 3).admitted).toBe(true);

    clock.now += 999;
    expect(one.rate.take(tenant, 3).admitted).toBe(false);
    clock.now += 1;
    expect(one.rate.take(tenant, 3)).toEqual({ admitted: true, remaining: 2 });
  });

  it("counts another replica's requests for the same tenant, and only for that tenant", async () => {
    clock.now += 5_000;
    const tenant = uniqueName('t');
    const bystander = uniqueName('t');
    expect(takeMany(one.rate, tenant, 6, 10).every(Boolean)).toBe(true);
    expect(takeMany(one.rate, bystander, 2, 10).every(Boolean)).toBe(true);
    await reportsHeard(one.nc, other.nc);

    expect(takeMany(other.rate, tenant, 5, 10)).toEqual([true, true, true, true, false]);
    expect(takeMany(other.rate, uniqueName('t'), 10, 10).every(Boolean)).toBe(true);
    await reportsHeard(other.nc, one.nc);
    // the other replica's four are heard back: the tenant is at its limit on both
    expect(one.rate.take(tenant, 10).admitted).toBe(false);
    expect(takeMany(other.rate, bystander, 8, 10).every(Boolean)).toBe(true);
    expect(other.rate.take(bystander, 10).admitted).toBe(false);
  });

  it('forgets what other replicas told once their second has passed', async () => {
    clock.now += 5_000;
    const tenant = uniqueName('t');
    takeMany(one.rate, tenant, 10, 10);
    await reportsHeard(one.nc, other.nc);
    expect(other.rate.take(tenant, 10).admitted).toBe(false);
    clock.now += 1_000;
    expect(other.rate.take(tenant, 10).admitted).toBe(true);
  });

  it("takes the whole rate for as long as a call's charged requests would have taken, on every replica", async () => {
    clock.now += 5_000;
    const tenant = uniqueName('t');
    // 30 writes at 10 a second: three seconds of the tenant's rate
    one.rate.charge(tenant, 30, 10);
    // refused, and told when it will be served
    expect(one.rate.take(tenant, 10)).toEqual({ admitted: false, remaining: 0, retryAfterSeconds: 3 });
    clock.now += 2_900;
    expect(one.rate.take(tenant, 10).admitted).toBe(false);
    // the other replica hears each second's worth as it comes due
    await reportsHeard(one.nc, other.nc);
    expect(other.rate.take(tenant, 10).admitted).toBe(false);
    clock.now += 1_000;
    expect(one.rate.take(tenant, 10).admitted).toBe(true);
    expect(takeMany(one.rate, uniqueName('t'), 10, 10).every(Boolean)).toBe(true);
  });

  it('ignores a malformed report, and one with counts that are not whole positive numbers', async () => {
    clock.now += 5_000;
    const tenant = uniqueName('t');
    const sender = await gatewayConnection();
    sender.publish(TENANT_REQUESTS_SUBJECT, 'not json');
    sender.publish(TENANT_REQUESTS_SUBJECT, JSON.stringify({ replica: 'x', counts: { [tenant]: 1e9, other: -3 } }));
    sender.publish(TENANT_REQUESTS_SUBJECT, JSON.stringify({ replica: 'x', counts: { [tenant]: 'many' } }));
    await sender.flush();
    await reportsHeard(one.nc);
    // the report with -3 is refused whole, the 1e9 with it
    expect(one.rate.take(tenant, 10)).toEqual({ admitted: true, remaining: 9 });
  });
});
