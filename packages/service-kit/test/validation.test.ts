import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSINESS_ID_PATTERN, BusinessId, PageQuery } from '@rm/contracts';
import { BASE_PATH, buildTestService, type TestService } from './helpers.js';

const Body = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'start_location'],
  properties: {
    name: {
      type: 'object',
      additionalProperties: false,
      required: ['first_name'],
      properties: { first_name: { type: 'string', minLength: 1, maxLength: 100 }, last_name: { type: 'string', maxLength: 100 } },
    },
    skills: { type: 'array', maxItems: 10, items: { type: 'string', pattern: BUSINESS_ID_PATTERN } },
    start_location: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 100 } } },
    count: { type: 'integer', minimum: 1 },
    shift: { type: 'string', format: 'duration' },
  },
} as const;

const ScaleQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    factor: { type: 'number', minimum: 0.5, maximum: 2 },
    shift: { type: 'number', minimum: -10, maximum: 10 },
    ids: { type: 'array', maxItems: 5, items: { type: 'integer', minimum: 1 } },
    count: { type: 'integer', minimum: 0 },
  },
} as const;

const INTEGER_TEXT = 'must be an integer in decimal digits, like 100';
const NUMBER_TEXT = 'must be a number in decimal digits, like 2.5';

describe('request validation', () => {
  let service: TestService;
  let headers: { authorization: string };

  beforeAll(async () => {
    service = await buildTestService(async (app) => {
      app.post('/items', { schema: { body: Body } }, async (request) => ({ received: request.body }));
      app.get('/items', { schema: { querystring: PageQuery } }, async (request) => ({ query: request.query }));
      app.get('/items/:id', { schema: { params: { type: 'object', properties: { id: BusinessId }, required: ['id'] } } }, async () => ({}));
      app.get('/counted', { schema: { headers: { type: 'object', properties: { 'X-Count': { type: 'integer' } } } } }, async (request) => ({
        count: request.headers['x-count'],
      }));
      app.get(
        '/offsets/:offset',
        { schema: { params: { type: 'object', properties: { offset: { type: 'integer', minimum: -1_000, maximum: 1_000 } } } } },
        async (request) => request.params,
      );
      app.get('/scaled', { schema: { querystring: ScaleQuery } }, async (request) => request.query);
    }, { bodyLimit: 2_048 });
    headers = await service.bearer();
  });
  afterAll(() => service.app.close());

  it('reports one violation per broken rule with a JSON path into the body', async () => {
    const response = await service.app.inject({
      method: 'POST',
      url: `${BASE_PATH}/items`,
      headers,
      payload: {
        name: { last_name: 'Doe' },
        skills: ['forklift', 'not valid', 'crane', 'a/b'],
        start_location: {},
        count: '1',
        shift: 'P1M',
        extra: true,
      },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = response.json();
    expect(problem).toMatchObject({ title: 'Invalid request', status: 400, detail: expect.any(String) });
    expect(problem.violations).toHaveLength(7);
    expect(problem.violations).toEqual(
      expect.arrayContaining([
        { field: 'extra', message: 'is not allowed' },
        { field: 'name.first_name', message: 'is required' },
        { field: 'skills[1]', message: `must match pattern ${BUSINESS_ID_PATTERN}` },
        { field: 'skills[3]', message: `must match pattern ${BUSINESS_ID_PATTERN}` },
        { field: 'start_location.name', message: 'is required' },
        // A JSON "1" stays a string in a body.
        { field: 'count', message: 'must be an integer' },
        { field: 'shift', message: expect.stringMatching(/^must be an ISO 8601 duration/) },
      ]),
    );
  });

  it('accepts a valid body as sent', async () => {
    const payload = { name: { first_name: 'Ann' }, skills: ['forklift'], start_location: { name: 'Depot 1' }, count: 2, shift: 'PT0.5S' };
    const response = await service.app.inject({ method: 'POST', url: `${BASE_PATH}/items`, headers, payload });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: payload });
  });

  it('coerces query parameters and applies their defaults', async () => {
    const withLimit = await service.app.inject({ url: `${BASE_PATH}/items?limit=5`, headers });
    expect(withLimit.json()).toEqual({ query: { limit: 5 } });
    const withoutLimit = await service.app.inject({ url: `${BASE_PATH}/items`, headers });
    expect(withoutLimit.json()).toEqual({ query: { limit: 100 } });
  });

  it('names the query parameter, path parameter or header that is wrong', async () => {
    const query = await service.app.inject({ url: `${BASE_PATH}/items?limit=0&sort=name`, headers });
    expect(query.statusCode).toBe(400);
    expect(query.json().violations).toEqual([
      { field: 'sort', message: 'is not allowed' },
      { field: 'limit', message: 'must be ≥ 1' },
    ]);

    const params = await service.app.inject({ url: `${BASE_PATH}/items/${'x'.repeat(513)}`, headers });
    expect(params.statusCode).toBe(400);
    expect(params.json().violations).toEqual(
      expect.arrayContaining([{ field: 'id', message: 'must be at most 512 characters long' }]),
    );

    const header = await service.app.inject({ url: `${BASE_PATH}/counted`, headers: { ...headers, 'x-count': 'many' } });
    expect(header.statusCode).toBe(400);
    expect(header.json().violations).toEqual([{ field: 'x-count', message: INTEGER_TEXT }]);
    const coerced = await service.app.inject({ url: `${BASE_PATH}/counted`, headers: { ...headers, 'x-count': '3' } });
    expect(coerced.json()).toEqual({ count: 3 });
  });

  it.each(['Infinity', '-Infinity', 'NaN', '0x10', '0b11', '0o7', '1e2', '+5', '05', '%205', '5%20', '1.0', '1.', '-5', '%EF%BC%95'])(
    'refuses limit=%s: query integers are decimal digits only',
    async (limit) => {
      const response = await service.app.inject({ url: `${BASE_PATH}/items?limit=${limit}`, headers });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toEqual({
        title: 'Invalid request',
        status: 400,
        detail: 'The request has invalid fields; see violations.',
        violations: [{ field: 'limit', message: INTEGER_TEXT }],
      });
    },
  );

  it('reports a number not in decimal digits together with the other violations of the part', async () => {
    const response = await service.app.inject({ url: `${BASE_PATH}/items?limit=1e2&sort=name`, headers });
    expect(response.statusCode).toBe(400);
    expect(response.json().violations).toEqual([
      { field: 'limit', message: INTEGER_TEXT },
      { field: 'sort', message: 'is not allowed' },
    ]);
  });

  it('holds every integer and number of query, path and headers to decimal digits, with a minus sign only where negatives are allowed', async () => {
    const accepted = await service.app.inject({ url: `${BASE_PATH}/scaled?factor=1.25&shift=-3.5&ids=1&ids=20&count=0`, headers });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ factor: 1.25, shift: -3.5, ids: [1, 20], count: 0 });
    expect((await service.app.inject({ url: `${BASE_PATH}/offsets/-12`, headers })).json()).toEqual({ offset: -12 });

    const refused = await service.app.inject({ url: `${BASE_PATH}/scaled?factor=.5&shift=1e1&ids=1&ids=0x2&count=-0`, headers });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().violations).toEqual([
      { field: 'factor', message: NUMBER_TEXT },
      { field: 'shift', message: NUMBER_TEXT },
      { field: 'ids[1]', message: INTEGER_TEXT },
      { field: 'count', message: INTEGER_TEXT },
    ]);
    const unsafe = await service.app.inject({ url: `${BASE_PATH}/scaled?count=9007199254740993`, headers });
    expect(unsafe.json().violations).toEqual([{ field: 'count', message: 'must be ≤ 9007199254740991' }]);

    const params = await service.app.inject({ url: `${BASE_PATH}/offsets/-012`, headers });
    expect(params.statusCode).toBe(400);
    expect(params.json().violations).toEqual([{ field: 'offset', message: INTEGER_TEXT }]);

    const header = await service.app.inject({ url: `${BASE_PATH}/counted`, headers: { ...headers, 'x-count': '0x3' } });
    expect(header.statusCode).toBe(400);
    expect(header.json().violations).toEqual([{ field: 'x-count', message: INTEGER_TEXT }]);
  });

  it('answers malformed JSON with a violation on the body', async () => {
    const response = await service.app.inject({
      method: 'POST',
      url: `${BASE_PATH}/items`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ title: 'Invalid request', violations: [{ field: 'body', message: 'is not valid JSON' }] });
  });

  it('keeps the status of fastify\'s own refusals: unsupported media type and body too large', async () => {
    const text = await service.app.inject({
      method: 'POST',
      url: `${BASE_PATH}/items`,
      headers: { ...headers, 'content-type': 'application/xml' },
      payload: '<item/>',
    });
    expect(text.statusCode).toBe(415);
    expect(text.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(text.json()).toMatchObject({ title: 'Unsupported Media Type', status: 415 });

    const large = await service.app.inject({
      method: 'POST',
      url: `${BASE_PATH}/items`,
      headers,
      payload: { name: { first_name: 'x'.repeat(4_000) } },
    });
    expect(large.statusCode).toBe(413);
    expect(large.json()).toMatchObject({ title: 'Payload Too Large', status: 413 });
  });
});
