import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etag, parseIfMatch, preferredReturn, replyDeleted, replyRead, replyWritten, resourceUrl, ValidationProblem } from '../src/index.js';
import { BASE_PATH, buildTestService, type TestService } from './helpers.js';

describe('parseIfMatch', () => {
  it('reads weak and strong tags alike, lists, and *', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch('W/"3"')).toEqual({ versions: [3] });
    expect(parseIfMatch('"3"')).toEqual({ versions: [3] });
    expect(parseIfMatch(' * ')).toEqual({ any: true });
    expect(parseIfMatch('W/"2", "5" ,W/"7"')).toEqual({ versions: [2, 5, 7] });
    expect(parseIfMatch(['W/"2"', 'W/"4"'])).toEqual({ versions: [2, 4] });
  });

  it.each(['3', 'W/3', '"abc"', '"03"', '"1" "2"', '*, "1"', '', 'W/"1",'])('refuses %j with a violation on If-Match', (header) => {
    let thrown: unknown;
    try {
      parseIfMatch(header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationProblem);
    expect((thrown as ValidationProblem).violations).toEqual([{ field: 'If-Match', message: 'must be * or entity tags like W/"3"' }]);
  });

  it('formats versions as weak ETags', () => {
    expect(etag(12)).toBe('W/"12"');
  });
});

describe('preferredReturn', () => {
  it.each([
    [undefined, undefined],
    ['return=minimal', 'minimal'],
    ['respond-async, wait=10, RETURN="representation"', 'representation'],
    ['handling=lenient; foo=bar, return=minimal; x=1', 'minimal'],
    [['wait=5', 'return=minimal'], 'minimal'],
    ['return=everything', undefined],
    ['handling=strict', undefined],
  ] as const)('reads %j as %s', (header, expected) => {
    expect(preferredReturn(header as string | string[] | undefined)).toBe(expected);
  });
});

const FORWARDED = {
  'x-forwarded-for': '203.0.113.9',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'api.example.com',
  'x-forwarded-prefix': '/gateway/',
};

describe('forwarded headers with TRUST_PROXY', () => {
  let service: TestService;
  let headers: { authorization: string };

  beforeAll(async () => {
    service = await buildTestService(
      async (app) => {
        app.put('/employee/:id', async (request, reply) => {
          const { id } = request.params as { id: string };
          return replyWritten(reply, { status: 201, body: { ip: request.ip }, version: 1, location: resourceUrl(request, `/employee/${id}`) });
        });
      },
      { trustProxy: ['10.0.0.0/8', '2001:db8::/32'] },
    );
    headers = await service.bearer();
  });
  afterAll(() => service.app.close());

  const put = (remoteAddress: string) =>
    service.app.inject({ method: 'PUT', url: `${BASE_PATH}/employee/e-7`, remoteAddress, headers: { ...headers, host: 'service.internal:3001', ...FORWARDED } });

  it.each(['10.1.2.3', '2001:db8::7'])('believes a trusted proxy at %s: scheme, host, prefix and client address', async (peer) => {
    const response = await put(peer);
    expect(response.headers.location).toBe(`https://api.example.com/gateway${BASE_PATH}/employee/e-7`);
    expect(response.json()).toEqual({ ip: '203.0.113.9' });
  });

  it('takes the last X-Forwarded-Prefix, the one the trusted proxy added, and drops one that is not a path', async () => {
    const location = async (prefix: string) =>
      (
        await service.app.inject({
          method: 'PUT',
          url: `${BASE_PATH}/employee/e-7`,
          remoteAddress: '10.1.2.3',
          headers: { ...headers, host: 'service.internal:3001', 'x-forwarded-prefix': prefix },
        })
      ).headers.location;
    expect(await location('/spoofed, /gateway')).toBe(`http://service.internal:3001/gateway${BASE_PATH}/employee/e-7`);
    expect(await location('//evil.example')).toBe(`http://service.internal:3001${BASE_PATH}/employee/e-7`);
  });

  it.each(['192.168.1.10', '127.0.0.1', '2001:db9::7'])('ignores the forwarded headers of %s, which is not a trusted proxy', async (peer) => {
    const response = await put(peer);
    expect(response.headers.location).toBe(`http://service.internal:3001${BASE_PATH}/employee/e-7`);
    expect(response.json()).toEqual({ ip: peer });
  });
});

describe('write responses', () => {
  let service: TestService;
  let headers: { authorization: string };

  beforeAll(async () => {
    service = await buildTestService(async (app) => {
      app.put('/employee/:id', async (request, reply) => {
        const { id } = request.params as { id: string };
        const ifMatch = parseIfMatch(request.headers['if-match']);
        const body = { id, version: 4, if_match: ifMatch ?? null };
        return replyWritten(reply, { status: 201, body, version: 4, location: resourceUrl(request, `/employee/${id}`) });
      });
      app.get('/employee/:id', async (_request, reply) => replyRead(reply, { body: { id: 'e1' }, version: 4 }));
      app.delete('/employee/:id', async (_request, reply) => replyDeleted(reply));
    });
    headers = await service.bearer();
  });
  afterAll(() => service.app.close());

  it('answers 204 without a body for Prefer: return=minimal, with all write headers', async () => {
    const response = await service.app.inject({ method: 'PUT', url: `${BASE_PATH}/employee/e1`, headers: { ...headers, prefer: 'return=minimal' } });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers).toMatchObject({
      etag: 'W/"4"',
      location: `http://localhost:80${BASE_PATH}/employee/e1`,
      vary: 'Prefer',
      'preference-applied': 'return=minimal',
    });
  });

  it('answers the status with the body for return=representation and by default', async () => {
    for (const prefer of ['return=representation', undefined]) {
      const response = await service.app.inject({
        method: 'PUT',
        url: `${BASE_PATH}/employee/e1`,
        headers: { ...headers, ...(prefer && { prefer }), 'if-match': 'W/"3"' },
      });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ id: 'e1', version: 4, if_match: { versions: [3] } });
      expect(response.headers).toMatchObject({ etag: 'W/"4"', vary: 'Prefer', 'preference-applied': 'return=representation' });
    }
  });

  it('ignores X-Forwarded-* by default: Location comes from the Host header and the connection', async () => {
    const response = await service.app.inject({
      method: 'PUT',
      url: `${BASE_PATH}/employee/e-7`,
      headers: { ...headers, host: 'service.internal:3001', ...FORWARDED },
    });
    expect(response.headers.location).toBe(`http://service.internal:3001${BASE_PATH}/employee/e-7`);
  });

  it('answers a malformed If-Match with a 400 naming it', async () => {
    const response = await service.app.inject({ method: 'PUT', url: `${BASE_PATH}/employee/e1`, headers: { ...headers, 'if-match': 'v3' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().violations).toEqual([{ field: 'If-Match', message: 'must be * or entity tags like W/"3"' }]);
  });

  it('sends the ETag on reads and an empty 204 on deletes', async () => {
    const read = await service.app.inject({ url: `${BASE_PATH}/employee/e1`, headers });
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('W/"4"');
    const deleted = await service.app.inject({ method: 'DELETE', url: `${BASE_PATH}/employee/e1`, headers });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
  });
});
