import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createClient, startGateway, tokenFor, type GatewayHarness } from './helpers.js';

const DEFAULT_LIMITS = { requestsPerSecond: 1_000, employees: 40, transportResources: 50, availabilities: 60 };

let upstream: Server;
let gateway: GatewayHarness;

beforeAll(async () => {
  // an owner that answers every request at once: what is measured is the gateway's own admission
  upstream = createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  gateway = await startGateway({
    UPSTREAM_EMPLOYEES_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    TENANT_REQUEST_RATE: String(DEFAULT_LIMITS.requestsPerSecond),
    TENANT_EMPLOYEE_QUOTA: String(DEFAULT_LIMITS.employees),
    TENANT_TRANSPORT_RESOURCE_QUOTA: String(DEFAULT_LIMITS.transportResources),
    TENANT_AVAILABILITY_QUOTA: String(DEFAULT_LIMITS.availabilities),
  });
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

function get(token: string): Promise<Response> {
  return gateway.fetch(`${BASE}/employee/e1`, { headers: { Authorization: `Bearer ${token}` } });
}

describe("a tenant's limits", () => {
  it("are in each token: the gateway's settings, the tenant's own once set, and the settings again once given back", async () => {
    const { tenant, clientId, secret } = await createClient(gateway.registry);
    expect(decodeJwt(await tokenFor(gateway, clientId, secret)).limits).toEqual(DEFAULT_LIMITS);

    await gateway.registry.setTenantLimits(tenant, { requestsPerSecond: 5, employees: 7 });
    expect(decodeJwt(await tokenFor(gateway, clientId, secret)).limits).toEqual({ ...DEFAULT_LIMITS, requestsPerSecond: 5, employees: 7 });

    await gateway.registry.setTenantLimits(tenant, { requestsPerSecond: null });
    expect(decodeJwt(await tokenFor(gateway, clientId, secret)).limits).toEqual({ ...DEFAULT_LIMITS, employees: 7 });
  });

  it('refuses a limit that is not a whole number of at least 1, and a tenant that does not exist', async () => {
    const { tenant } = await createClient(gateway.registry);
    await expect(gateway.registry.setTenantLimits(tenant, { employees: 0 })).rejects.toThrow(/employees is a whole number of at least 1/);
    await expect(gateway.registry.setTenantLimits(tenant, { availabilities: 1.5 })).rejects.toThrow(/availabilities/);
    await expect(gateway.registry.setTenantLimits(tenant, {})).rejects.toThrow(/at least one limit/);
    await expect(gateway.registry.setTenantLimits('no-such-tenant', { employees: 3 })).rejects.toThrow(/no tenant 'no-such-tenant'/);
  });
});

describe("a tenant's request rate", () => {
  it('answers 429 problem+json with Retry-After beyond it, tells every answer where the tenant stands, and leaves other tenants alone', async () => {
    const noisy = await createClient(gateway.registry);
    await gateway.registry.setTenantLimits(noisy.tenant, { requestsPerSecond: 5 });
    const noisyToken = await tokenFor(gateway, noisy.clientId, noisy.secret);
    const quiet = await createClient(gateway.registry);
    const quietToken = await tokenFor(gateway, quiet.clientId, quiet.secret);

    // twenty at once arrive within the second: five are admitted, the rest refused
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(noisyToken)));
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(admitted.length + refused.length).toBe(20);
    expect(admitted.length).toBeGreaterThanOrEqual(5);
    expect(refused.length).toBeGreaterThanOrEqual(1);

    for (const answer of admitted) {
      expect(answer.headers.get('ratelimit-policy')).toBe('"tenant";q=5;w=1');
      expect(answer.headers.get('ratelimit')).toMatch(/^"tenant";r=[0-4];t=1$/);
    }
    const remainders = admitted.map((answer) => Number(/r=(\d)/.exec(answer.headers.get('ratelimit')!)![1]));
    expect(new Set(remainders).size).toBe(remainders.length);

    const refusal = refused[0]!;
    expect(refusal.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refusal.headers.get('retry-after')).toBe('1');
    expect(refusal.headers.get('ratelimit-policy')).toBe('"tenant";q=5;w=1');
    expect(refusal.headers.get('ratelimit')).toBe('"tenant";r=0;t=1');
    expect(await refusal.json()).toMatchObject({ status: 429, title: 'Too Many Requests', limit: 5, detail: expect.stringContaining('limited to 5 a second') });

    const bystander = await get(quietToken);
    expect(bystander.status).toBe(200);
    expect(bystander.headers.get('ratelimit-policy')).toBe(`"tenant";q=${DEFAULT_LIMITS.requestsPerSecond};w=1`);
  });

  it('admits the tenant again once the second has passed', async () => {
    const { tenant, clientId, secret } = await createClient(gateway.registry);
    await gateway.registry.setTenantLimits(tenant, { requestsPerSecond: 2 });
    const token = await tokenFor(gateway, clientId, secret);
    const burst = await Promise.all(Array.from({ length: 6 }, () => get(token)));
    expect(burst.some((answer) => answer.status === 429)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await get(token)).status).toBe(200);
  });
});
