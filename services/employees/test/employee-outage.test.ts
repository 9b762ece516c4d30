import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMongoServer, type RestartableServerHandle } from '@rm/testkit';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { BASE, startEmployees, type EmployeesHarness } from './helpers.js';

// A database server of this file's own, so that taking it away disturbs no other test.
let server: RestartableServerHandle;
let harness: EmployeesHarness;

beforeAll(async () => {
  server = await startMongoServer();
  // a lost server answers 503 after a second, not after the production default's ten
  harness = await startEmployees({ MONGO_URL: server.url, MONGO_OPERATION_TIMEOUT_MS: '1000' });
});

afterAll(async () => {
  await harness?.close();
  await server?.stop();
});

describe('when the database goes away', () => {
  it('answers 503 problems without internals and /readyz turns 503, until it is back', async () => {
    const headers = await harness.as('tenant-outage');
    await server.kill();

    for (const request of [
      { method: 'GET', url: `${BASE}/employee/e-1` },
      { method: 'GET', url: `${BASE}/employee` },
      { method: 'DELETE', url: `${BASE}/employee/e-1` },
    ] as const) {
      const response = await harness.app.inject({ ...request, headers });
      expectProblemWithStatus(response, 503);
      expect(response.body).not.toMatch(/Mongo|at .*\.js|127\.0\.0\.1/);
    }
    expect((await harness.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);

    await server.start();
    const back = await harness.app.inject({ method: 'GET', url: `${BASE}/employee/e-1`, headers });
    expect(back.statusCode).toBe(404);
    expect((await harness.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
