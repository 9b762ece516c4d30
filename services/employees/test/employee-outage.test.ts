import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMongoServer, type ServerHandle } from '@rm/testkit';
import { BASE, json, startEmployeesApp, type EmployeesHarness } from './helpers.js';

// A database server of this file's own, so that stopping it disturbs no other test.
let server: ServerHandle;
let harness: EmployeesHarness;

beforeAll(async () => {
  server = await startMongoServer();
  harness = await startEmployeesApp({ mongoUrl: server.url });
});

afterAll(async () => {
  // not harness.close(): its database cannot be dropped on a stopped server
  await harness?.app.close();
  await harness?.mongo.client.close();
  await server?.stop();
});

describe('when the database goes away', () => {
  it('answers 503 problems without internals, and /readyz turns 503', async () => {
    const headers = await harness.as('tenant-outage');
    await server.stop();

    for (const request of [
      { method: 'GET', url: `${BASE}/employee/e-1` },
      { method: 'GET', url: `${BASE}/employee` },
      { method: 'DELETE', url: `${BASE}/employee/e-1` },
    ] as const) {
      const response = await harness.app.inject({ ...request, headers });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = json(response);
      expect(problem).toMatchObject({ title: expect.any(String), detail: expect.any(String) });
      expect(response.body).not.toMatch(/Mongo|at .*\.js|127\.0\.0\.1/);
    }
    expect((await harness.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
  });
});
