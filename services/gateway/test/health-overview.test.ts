import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthOverview } from '../src/operations/health-overview.js';
import { HEALTH_OVERVIEW_PATH } from '../src/routes/operations.routes.js';
import { BASE, signIn, startGateway } from './helpers.js';
import { startStack, type Stack } from './stack.js';

const ADMIN_TOKEN = 'test-only-operators-token-0123456789abcdef';
const SERVICE_VERSION = '1.2.3-test';
const OWNERS = ['home-bases', 'employees', 'transport-resources', 'deployments', 'matching', 'webhooks'];

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ ADMIN_TOKEN, SERVICE_VERSION });
});

afterAll(async () => {
  await stack?.close();
});

function overview(authorization?: string): Promise<Response> {
  return stack.gateway.fetch(HEALTH_OVERVIEW_PATH, authorization === undefined ? {} : { headers: { Authorization: authorization } });
}

describe('the operators\' health overview', () => {
  it('refuses a request without the operators\' token, and an integrator\'s token', async () => {
    const { token: integratorToken } = await signIn(stack.gateway);
    expect((await stack.gateway.fetch(`${BASE}/ping`, { headers: { Authorization: `Bearer ${integratorToken}` } })).status).toBe(200);

    for (const authorization of [undefined, `Bearer ${integratorToken}`, `Bearer ${ADMIN_TOKEN}x`, `Basic ${ADMIN_TOKEN}`]) {
      const response = await overview(authorization);
      expect(response.status).toBe(401);
      // 401s carry no body, only the challenge (errors.ts)
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="operations"');
      expect(await response.text()).toBe('');
    }
  });

  it('lists every service as ready, with its version and its outbox', async () => {
    const response = await overview(`Bearer ${ADMIN_TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as HealthOverview;
    expect(body.status).toBe('ok');
    expect(body.services.map((service) => service.service).sort()).toEqual(['gateway', ...OWNERS].sort());
    for (const service of body.services) {
      expect(service.ready, service.service).toBe(true);
      expect(service.checks, service.service).toMatchObject({ mongodb: 'ok', nats: 'ok' });
      // the owners started in-process have no SERVICE_VERSION: runMain reads it from package.json
      expect(service.version, service.service).toBe(service.service === 'gateway' ? SERVICE_VERSION : 'unknown');
      expect(service.outbox.backlog, service.service).toEqual(expect.any(Number));
      expect(service.outbox.oldestEventAgeSeconds, service.service).toEqual(expect.any(Number));
    }
  });

  it('says which service is down when one stops, and answers 503', async () => {
    await stack.owners.matching!.stop();
    const response = await overview(`Bearer ${ADMIN_TOKEN}`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as HealthOverview;
    expect(body.status).toBe('degraded');
    const down = body.services.filter((service) => !service.ready);
    expect(down.map((service) => service.service)).toEqual(['matching']);
    expect(down[0]).toMatchObject({ version: null, outbox: { backlog: null, oldestEventAgeSeconds: null } });
    expect(down[0]!.error).toEqual(expect.any(String));
  });
});

describe('without ADMIN_TOKEN', () => {
  it('serves no overview', async () => {
    const gateway = await startGateway();
    try {
      const response = await gateway.fetch(HEALTH_OVERVIEW_PATH, { headers: { Authorization: 'Bearer anything-at-all' } });
      expect(response.status).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});
