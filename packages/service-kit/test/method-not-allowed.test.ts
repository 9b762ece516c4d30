import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_PATH, buildTestService, type TestService } from './helpers.js';

const PROBLEM_JSON = /^application\/problem\+json/;

describe('methods a path does not take', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await buildTestService(async (app) => {
      app.get('/employee', async () => ({ employees: [] }));
      app.get('/employee/:id', async () => ({}));
      app.put('/employee/:id', async () => ({}));
      app.delete('/employee/:id', async () => ({}));
      // a route that finds nothing to answer with and hands over to the not-found handler
      app.get('/asset/:name', async (_request, reply) => reply.callNotFound());
    });
  });
  afterAll(() => service.app.close());

  it.each([
    ['OPTIONS', `${BASE_PATH}/employee/e-1`, 'DELETE, GET, HEAD, PUT'],
    ['PATCH', `${BASE_PATH}/employee/e-1?x=1`, 'DELETE, GET, HEAD, PUT'],
    ['POST', `${BASE_PATH}/employee/e-1`, 'DELETE, GET, HEAD, PUT'],
    ['PROPFIND', `${BASE_PATH}/employee/e-1`, 'DELETE, GET, HEAD, PUT'],
    ['POST', `${BASE_PATH}/employee`, 'GET, HEAD'],
    ['DELETE', '/healthz', 'GET, HEAD'],
  ])('answers %s %s with 405 and Allow: %s', async (method, url, allow) => {
    const response = await service.app.inject({ method: method as 'GET', url });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
    const path = url.split('?')[0];
    expect(response.json()).toEqual({ title: 'Method Not Allowed', status: 405, detail: `${path} does not take ${method}; it takes ${allow}.` });
  });

  it('answers 404, not 405, when a route of the right method hands over to the not-found handler', async () => {
    const response = await service.app.inject({ method: 'GET', url: `${BASE_PATH}/asset/missing.js`, headers: await service.bearer() });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
  });

  it('answers 405 before looking at the body', async () => {
    const response = await service.app.inject({
      method: 'PATCH',
      url: `${BASE_PATH}/employee/e-1`,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: '{"broken":',
    });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('DELETE, GET, HEAD, PUT');
  });

  it('keeps 404 for a path no route matches, whatever the method', async () => {
    for (const method of ['GET', 'OPTIONS', 'PATCH'] as const) {
      const response = await service.app.inject({ method, url: `${BASE_PATH}/employee/e-1/unknown` });
      expect(response.statusCode).toBe(404);
      expect(response.headers.allow).toBeUndefined();
      expect(response.json()).toEqual({ title: 'Not Found', status: 404, detail: `There is no ${method} ${BASE_PATH}/employee/e-1/unknown` });
    }
  });
});
