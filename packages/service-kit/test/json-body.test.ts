import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_PATH, buildTestService, type TestService } from './helpers.js';

const PROBLEM_JSON = /^application\/problem\+json/;

describe('JSON request bodies', () => {
  let service: TestService;
  let headers: { authorization: string };

  beforeAll(async () => {
    service = await buildTestService(async (app) => {
      app.post('/echo', async (request) => ({ received: request.body }));
      app.post('/opaque', { config: { opaqueJsonFields: ['custom_data'] } }, async (request) => ({
        received: request.body,
        prototypeKept: Object.getPrototypeOf((request.body as { custom_data?: object }).custom_data ?? {}) === Object.prototype,
      }));
    });
    headers = await service.bearer();
  });
  afterAll(() => service.app.close());

  const post = (payload: string | Buffer, extra: Record<string, string> = {}, url = `${BASE_PATH}/echo`) =>
    service.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json', ...extra }, payload });

  function expectInvalidBody(response: Awaited<ReturnType<typeof post>>, violations: { field: string; message: string }[]) {
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
    expect(response.json()).toEqual({ title: 'Invalid request', status: 400, detail: 'The request has invalid fields; see violations.', violations });
  }

  it.each(['gzip', 'br', 'deflate', 'GZIP', 'identity, gzip', 'x-custom'])('answers Content-Encoding %s with 415 and Accept-Encoding: identity', async (coding) => {
    for (const payload of [gzipSync('{"a":1}'), '{"a":1}']) {
      const response = await post(payload, { 'content-encoding': coding });
      expect(response.statusCode).toBe(415);
      expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(response.headers['accept-encoding']).toBe('identity');
      expect(response.json()).toEqual({
        title: 'Unsupported Media Type',
        status: 415,
        detail: 'The request body must not be compressed: only Content-Encoding identity is supported.',
      });
    }
  });

  it.each([
    ['no parameters', 'application/json'],
    ['charset=utf-8', 'application/json; charset=utf-8'],
    ['charset=UTF-8 quoted', 'application/json;charset="UTF-8"'],
    ['charset=utf8', 'application/json; charset=utf8'],
  ])('reads a body with %s and Content-Encoding identity', async (_case, contentType) => {
    const response = await post('{"name":"Zoë 😀"}', { 'content-type': contentType, 'content-encoding': 'identity' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: { name: 'Zoë 😀' } });
  });

  it.each(['iso-8859-1', 'latin1', 'utf-16', 'us-ascii', '"windows-1252"'])('answers charset=%s with 415', async (charset) => {
    const response = await post(Buffer.from('{"name":"Zoë"}', 'latin1'), { 'content-type': `application/json; charset=${charset}` });
    expect(response.statusCode).toBe(415);
    expect(response.headers['content-type']).toMatch(PROBLEM_JSON);
    expect(response.json()).toEqual({ title: 'Unsupported Media Type', status: 415, detail: 'The request body must be UTF-8 (charset=utf-8).' });
  });

  it.each([
    ['a Latin-1 byte', Buffer.from('{"name":"Zoë"}', 'latin1')],
    ['a truncated sequence', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22, 0x7d])],
    ['an overlong encoding', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d])],
    ['an encoded surrogate', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])],
  ])('refuses a body with %s, which is not UTF-8, with a 400 on body', async (_case, payload) => {
    expectInvalidBody(await post(payload), [{ field: 'body', message: 'must be UTF-8 text' }]);
  });

  it('refuses strings and property names with unpaired surrogates, naming each field', async () => {
    const response = await post('{"name":{"first_name":"Ann\\ud800"},"skills":["ok","\\udc00"],"custom":{"\\ud83dkey":1},"fine":"\\ud83d\\ude00"}');
    const message = 'must be valid Unicode text, without unpaired surrogates like \\ud800';
    expectInvalidBody(response, [
      { field: 'name.first_name', message },
      { field: 'skills[1]', message },
      { field: 'custom["\\ud83dkey"]', message },
    ]);
    expectInvalidBody(await post('"\\udfff"'), [{ field: 'body', message }]);
    expect((await post('{"fine":"\\ud83d\\ude00"}')).json()).toEqual({ received: { fine: '😀' } });
  });

  it('checks a deeply nested body without exhausting the stack', async () => {
    const depth = 100_000;
    const response = await post(`${'['.repeat(depth)}"\\ud800"${']'.repeat(depth)}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().violations).toEqual([{ field: '[0]'.repeat(depth), message: 'must be valid Unicode text, without unpaired surrogates like \\ud800' }]);
  });

  it.each([
    ['__proto__', '{"a":1,"__proto__":{"admin":true}}'],
    ['constructor.prototype', '{"a":{"constructor":{"prototype":{"admin":true}}}}'],
  ])('refuses a body with %s, which could poison prototypes', async (_case, payload) => {
    expectInvalidBody(await post(payload), [{ field: 'body', message: 'must not contain the keys __proto__ or constructor.prototype' }]);
  });

  it('keeps __proto__ and constructor.prototype inside a route\'s opaque fields as plain keys, and refuses them anywhere else', async () => {
    const opaque = (payload: string) => post(payload, {}, `${BASE_PATH}/opaque`);
    const kept = '{"custom_data":{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"n":[{"__proto__":1}]}}';
    const response = await opaque(kept);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(`{"received":${kept},"prototypeKept":true}`);
    expect(({} as { admin?: boolean }).admin).toBeUndefined();

    const message = 'must not contain the keys __proto__ or constructor.prototype';
    expectInvalidBody(await opaque('{"custom_data":{},"__proto__":{"admin":true}}'), [{ field: 'body', message }]);
    expectInvalidBody(await opaque('{"other":{"constructor":{"prototype":{"admin":true}}}}'), [{ field: 'body', message }]);
    expectInvalidBody(await opaque('[{"__proto__":{}}]'), [{ field: 'body', message }]);
    expectInvalidBody(await opaque('{"custom_data":'), [{ field: 'body', message: 'is not valid JSON' }]);
    expect((await opaque('7')).json()).toEqual({ received: 7, prototypeKept: true });
  });

  it('still answers malformed and empty JSON with a 400 on body', async () => {
    expectInvalidBody(await post('{"a":'), [{ field: 'body', message: 'is not valid JSON' }]);
    expectInvalidBody(await post(''), [{ field: 'body', message: 'must not be empty' }]);
  });

  it('takes JSON only: a text/plain body is a 415', async () => {
    const response = await post('hello', { 'content-type': 'text/plain' });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual({ title: 'Unsupported Media Type', status: 415, detail: 'The request body must be application/json.' });
  });

  it('does not read the body of a request no route takes: 404 comes first', async () => {
    const variants: Record<string, string>[] = [{}, { 'content-encoding': 'gzip' }, { 'content-type': 'application/json; charset=latin1' }];
    for (const extra of variants) {
      const response = await post('{"a":', extra, `${BASE_PATH}/nowhere`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ title: 'Not Found', status: 404 });
    }
  });
});
