import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, NotFound, PreconditionFailed } from '../src/index.js';
import { BASE_PATH, buildTestService, type TestService } from './helpers.js';

class StoreLikeError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
    readonly code: string,
    readonly extensions?: unknown,
  ) {
    super(message);
  }
}

describe('errors, request ids and logs', () => {
  let service: TestService;
  let headers: { authorization: string };

  beforeAll(async () => {
    service = await buildTestService(async (app) => {
      app.get('/boom', async () => {
        throw new Error('database password is hunter2');
      });
      app.get('/conflict', async () => {
        throw new StoreLikeError("employee 'e1' was changed concurrently; retry the request", 409, 'RM_STORE_CONCURRENT_WRITE');
      });
      app.get('/conflict-with-id', async () => {
        throw new StoreLikeError("availability overlaps availability 'a-7'", 409, 'RM_STORE_CONFLICT', { conflicting_id: 'a-7', detail: 'x' });
      });
      app.get('/conflict-with-odd-extensions', async () => {
        throw new StoreLikeError('conflict', 409, 'RM_STORE_CONFLICT', ['not', 'members']);
      });
      app.get('/unavailable', async () => {
        throw new StoreLikeError('mongodb at 10.0.0.7 refused the connection', 503, 'RM_STORE_UNAVAILABLE');
      });
      app.get('/problems/:kind', async (request) => {
        const { kind } = request.params as { kind: string };
        if (kind === 'missing') throw new NotFound("employee 'e1' does not exist");
        if (kind === 'stale') throw new PreconditionFailed('If-Match does not match W/"3"');
        if (kind === 'overlap-with-id') {
          // Extension members may not replace the members every problem has.
          const extensions = { conflicting_id: 'a-1', title: 'OK', status: 200, detail: 'fine', type: 'about:blank', instance: '/x', violations: [] };
          throw new Conflict('availability overlaps a-1', extensions);
        }
        throw new Conflict('availability overlaps 0190b3c4-7a1e-7c2f-9d4e-123456789abc');
      });
      app.get('/log-headers', async (request) => {
        request.log.info({ headers: request.headers }, 'headers seen');
        return { ok: true };
      });
    });
    headers = await service.bearer();
  });
  afterAll(() => service.app.close());

  it('answers an unexpected error with a generic 500 and logs its stack', async () => {
    const response = await service.app.inject({ url: `${BASE_PATH}/boom`, headers: { ...headers, 'x-request-id': 'req-boom' } });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual({
      title: 'Internal Server Error',
      status: 500,
      detail: 'The server could not complete the request; it has been logged.',
    });
    expect(response.body).not.toMatch(/hunter2|at .*\.ts/);
    const logged = service.logs.records().find((record) => record.msg === 'request failed' && record.reqId === 'req-boom');
    expect(logged).toMatchObject({ level: 'error', err: { message: 'database password is hunter2', stack: expect.stringContaining('errors.test.ts') } });
  });

  it('keeps status and message of errors below 500 and hides those of 5xx errors', async () => {
    const conflict = await service.app.inject({ url: `${BASE_PATH}/conflict`, headers });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ title: 'Conflict', status: 409, detail: "employee 'e1' was changed concurrently; retry the request" });

    const unavailable = await service.app.inject({ url: `${BASE_PATH}/unavailable`, headers });
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.headers['retry-after']).toBe('1');
    expect(unavailable.json()).toMatchObject({ title: 'Service Unavailable', status: 503 });
    expect(unavailable.body).not.toContain('10.0.0.7');
  });

  it('passes on the extension members a store or domain error offers, never over the standard ones', async () => {
    const conflict = await service.app.inject({ url: `${BASE_PATH}/conflict-with-id`, headers });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ title: 'Conflict', status: 409, detail: "availability overlaps availability 'a-7'", conflicting_id: 'a-7' });

    const odd = await service.app.inject({ url: `${BASE_PATH}/conflict-with-odd-extensions`, headers });
    expect(odd.json()).toEqual({ title: 'Conflict', status: 409, detail: 'conflict' });
  });

  it.each([
    ['missing', 404, 'Not Found', "employee 'e1' does not exist"],
    ['stale', 412, 'Precondition Failed', 'If-Match does not match W/"3"'],
    ['overlap', 409, 'Conflict', 'availability overlaps 0190b3c4-7a1e-7c2f-9d4e-123456789abc'],
  ])('answers the %s problem with its status, title and detail', async (kind, status, title, detail) => {
    const response = await service.app.inject({ url: `${BASE_PATH}/problems/${kind}`, headers });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ title, status, detail });
  });

  it('adds extension members to a problem without letting them replace title, status, detail or violations', async () => {
    const response = await service.app.inject({ url: `${BASE_PATH}/problems/overlap-with-id`, headers });
    expect(response.statusCode).toBe(409);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual({ title: 'Conflict', status: 409, detail: 'availability overlaps a-1', conflicting_id: 'a-1' });
  });

  it('answers unknown routes with a problem+json 404', async () => {
    const response = await service.app.inject({ url: '/nowhere?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual({ title: 'Not Found', status: 404, detail: 'There is no GET /nowhere' });
  });

  it('echoes a valid X-Request-Id, replaces an invalid one, and logs every request line with it', async () => {
    const given = await service.app.inject({ url: `${BASE_PATH}/ping`, headers: { ...headers, 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const requestLines = service.logs.records().filter((record) => record.reqId === 'abc-123');
    expect(requestLines.map((record) => record.msg)).toEqual(['incoming request', 'request completed']);
    expect(requestLines[0]).toMatchObject({ req: { method: 'GET', url: `${BASE_PATH}/ping` } });
    expect(requestLines[1]).toMatchObject({ res: { statusCode: 200 } });

    const invalid = await service.app.inject({ url: `${BASE_PATH}/ping`, headers: { ...headers, 'x-request-id': 'has spaces' } });
    expect(invalid.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const unauthenticated = await service.app.inject({ url: `${BASE_PATH}/ping`, headers: { 'x-request-id': 'no-token' } });
    expect(unauthenticated.headers['x-request-id']).toBe('no-token');
  });

  it('never writes the bearer token to the logs, even when a handler logs the headers', async () => {
    const token = headers.authorization.slice('Bearer '.length);
    const response = await service.app.inject({ url: `${BASE_PATH}/log-headers`, headers: { ...headers, cookie: 'session=s3cret' } });
    expect(response.statusCode).toBe(200);
    const seen = service.logs.records().find((record) => record.msg === 'headers seen');
    expect(seen).toMatchObject({ headers: { authorization: '[redacted]', cookie: '[redacted]' } });
    expect(service.logs.text()).not.toContain(token);
    expect(service.logs.text()).not.toContain('s3cret');
  });
});
