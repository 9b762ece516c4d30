import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@rm/testkit';
import { BASE_PATH, buildTestService, deferred, openRawConnection, sendRawHttp, type TestService } from './helpers.js';

const PROBLEM_JSON = /^application\/problem\+json/;

describe('errors raised by fastify and node before a handler runs', () => {
  let service: TestService;
  let headers: { authorization: string };

  beforeAll(async () => {
    service = await buildTestService(
      async (app) => {
        app.get('/items/:id', async (request) => request.params);
        app.post('/items', async (request) => ({ received: request.body }));
      },
      { bodyLimit: 2_048 },
    );
    headers = await service.bearer();
  });
  afterAll(() => service.app.close());

  it.each([`${BASE_PATH}/items/a%zz`, `${BASE_PATH}/items/%`, `${BASE_PATH}/items/%C3%28`, '/nowhere/a%zz'])(
    'answers a malformed percent-escape in %s with a 400 problem on the path, without echoing it',
    async (url) => {
      const response = await service.app.inject({ url, headers });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
      expect(response.json()).toEqual({
        title: 'Invalid request',
        status: 400,
        detail: 'The URL path is not valid.',
        violations: [{ field: 'path', message: 'must be percent-encoded correctly: every % starts an escape like %2F' }],
      });
    },
  );

  it('answers a path parameter over the router limit with a 414 problem that does not echo the path', async () => {
    const response = await service.app.inject({ url: `${BASE_PATH}/items/${'x'.repeat(2_049)}`, headers });
    expect(response.statusCode).toBe(414);
    expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
    expect(response.json()).toEqual({ title: 'URI Too Long', status: 414, detail: 'A path parameter is longer than 2048 characters.' });
  });

  it('answers a body over the limit with a 413 problem naming the limit', async () => {
    const response = await service.app.inject({ method: 'POST', url: `${BASE_PATH}/items`, headers, payload: { text: 'x'.repeat(3_000) } });
    expect(response.statusCode).toBe(413);
    expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
    expect(response.json()).toEqual({ title: 'Payload Too Large', status: 413, detail: 'The request body is larger than 2048 bytes.' });
  });

  it.each([
    ['another media type', { 'content-type': 'application/xml' }],
    ['no media type', {}],
    ['a media type that does not parse', { 'content-type': 'json' }],
  ])('answers a body with %s with a 415 problem', async (_case, contentType) => {
    const response = await service.app.inject({ method: 'POST', url: `${BASE_PATH}/items`, headers: { ...headers, ...contentType }, payload: '<item/>' });
    expect(response.statusCode).toBe(415);
    expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
    expect(response.json()).toEqual({ title: 'Unsupported Media Type', status: 415, detail: 'The request body must be application/json.' });
  });

  // Location is built from the host: one that is not a host and port would make it a broken or foreign URL
  // the last: labels that each fit, longer together than a DNS name can be (253), read no further
  it.each(['[::1]:99999', 'a b', 'example.com:0', 'example.com:', 'user@example.com', 'example.com/path', '-bad.example', `${`${'a'.repeat(60)}.`.repeat(5)}com`])(
    'answers a Host of %j with a 400 problem naming it',
    async (host) => {
      const response = await service.app.inject({ url: '/healthz', headers: { host } });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(response.json()).toMatchObject({ violations: [{ field: 'Host', message: 'must be a host name or IP address, with an optional port' }] });
    },
  );

  it.each(['api.example.com', 'api.example.com:8443', '127.0.0.1:3000', '[::1]:3000', '[2001:db8::1]', 'matching_1:3000', 'localhost'])(
    'accepts a Host of %j',
    async (host) => {
      expect((await service.app.inject({ url: '/healthz', headers: { host } })).statusCode).toBe(200);
    },
  );

  it('answers a Content-Length that does not match the body with a 400 problem naming it', async () => {
    const response = await service.app.inject({
      method: 'POST',
      url: `${BASE_PATH}/items`,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': '10' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      title: 'Invalid request',
      status: 400,
      detail: 'The request has invalid fields; see violations.',
      violations: [{ field: 'Content-Length', message: 'must be the size of the body in bytes' }],
    });
  });

  describe('over a socket', () => {
    let port: number;

    beforeAll(async () => {
      await service.app.listen({ host: '127.0.0.1', port: 0 });
      port = (service.app.server.address() as AddressInfo).port;
    });

    it.each(['HTTP/1.1', 'HTTP/1.0'])('answers an %s request without Host with a 400 problem naming it', async (version) => {
      const response = await sendRawHttp(port, `GET /healthz ${version}\r\n\r\n`);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(JSON.parse(response.body)).toEqual({
        title: 'Invalid request',
        status: 400,
        detail: 'The request has invalid fields; see violations.',
        violations: [{ field: 'Host', message: 'is required' }],
      });
    });

    it.each([
      ['headers over the size limit', 431, `GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 'Request Header Fields Too Large', 'The request line and headers are larger than the server accepts.'],
      ['a malformed request line', 400, 'GE T /healthz HTTP/1.1\r\nHost: a\r\n\r\n', 'Bad Request', 'The request is not valid HTTP/1.1.'],
      ['conflicting body lengths', 400, 'POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n', 'Bad Request', 'The request is not valid HTTP/1.1.'],
    ])('answers %s with a %i problem', async (_case, status, request, title, detail) => {
      const response = await sendRawHttp(port, request);
      expect(response.status).toBe(status);
      expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(response.headers.connection).toBe('close');
      expect(JSON.parse(response.body)).toEqual({ title, status, detail });
    });

    it('answers a request that did not arrive in time with a 408 problem', async () => {
      // Node checks request deadlines every 30 s and then raises clientError; raise it at once.
      const accepted = new Promise<Socket>((resolve) => service.app.server.once('connection', resolve));
      const client = openRawConnection(port);
      client.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n');
      service.app.server.emit('clientError', Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), await accepted);
      const [response] = await client.responses;
      expect(response?.status).toBe(408);
      expect(response?.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(JSON.parse(response?.body ?? '')).toEqual({ title: 'Request Timeout', status: 408, detail: 'The request did not arrive in time.' });
    });
  });
});

describe('a connection that drips its headers', () => {
  it('is answered 408 and closed once the headers timeout has passed, not held for a minute', { timeout: 15_000 }, async () => {
    const { app } = await buildTestService(async () => {}, { headersTimeout: 1_000 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const client = openRawConnection((app.server.address() as AddressInfo).port);
      client.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n');
      const drip = setInterval(() => client.socket.writable && client.socket.write('X-Slow: still coming\r\n'), 200);
      const [response] = await client.responses.finally(() => clearInterval(drip));
      expect(response?.status).toBe(408);
    } finally {
      await app.close();
    }
  });
});

describe('requests that arrive while the service closes', () => {
  it('are answered with a 503 problem', async () => {
    const closing = deferred();
    // Runs after the service's own preClose hooks, which are the root's.
    const { app } = await buildTestService(async (api) => {
      api.addHook('preClose', async () => closing.resolve());
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    // A connection in the middle of a request is not idle, so closing leaves it open.
    const accepted = new Promise<Socket>((resolve) => app.server.once('connection', resolve));
    const client = openRawConnection(port);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n');
    const serverSide = await accepted;
    await waitFor('the server to read the first half of the request', async () => serverSide.bytesRead > 0);
    const closed = app.close();
    await closing.promise;
    client.socket.write('\r\n');

    const [response] = await client.responses;
    expect(response?.status).toBe(503);
    expect(response?.headers['content-type']).toMatch(PROBLEM_JSON);
    expect(response?.headers['retry-after']).toBe('1');
    expect(JSON.parse(response?.body ?? '')).toEqual({ title: 'Service Unavailable', status: 503, detail: 'The service is shutting down.' });
    await closed;
  });
});
