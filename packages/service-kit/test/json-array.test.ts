import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@rm/testkit';
import { sendJsonArray } from '../src/index.js';
import { BASE_PATH, buildTestService, type TestService } from './helpers.js';

class StoreLikeError extends Error {
  readonly statusCode = 503;
  readonly code = 'RM_STORE_UNAVAILABLE';
}

/** Items as a cursor hands them out, noting whether it was closed (its `finally`). */
function items(count: number, { failFirst = false } = {}) {
  const state = { read: 0, closed: false };
  async function* generate() {
    try {
      if (failFirst) throw new StoreLikeError('the database cannot be reached right now; retry later');
      for (let index = 0; index < count; index += 1) {
        state.read += 1;
        // a macrotask now and then, as a cursor's round trips are
        if (index % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
        yield { id: `item-${index}`, label: 'x'.repeat(100) };
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, iterable: generate() };
}

describe('a JSON array answered item by item', () => {
  let service: TestService;
  let origin: string;
  let current = items(0);

  beforeAll(async () => {
    service = await buildTestService(async (app) => {
      app.get('/items', async (_request, reply) => sendJsonArray(reply, current.iterable, (item) => ({ ...item, represented: true })));
    });
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    const address = service.app.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });

  afterAll(async () => {
    await service?.app.close();
  });

  async function get(source: ReturnType<typeof items>) {
    current = source;
    return request(`${origin}${BASE_PATH}/items`, { headers: await service.bearer() });
  }

  it('is the whole list, each item represented, in order, also when it is none or one', async () => {
    for (const count of [0, 1, 3]) {
      const response = await get(items(count));
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = (await response.body.json()) as { id: string; represented: boolean }[];
      expect(body.map((item) => item.id)).toEqual(Array.from({ length: count }, (_, index) => `item-${index}`));
      expect(body.every((item) => item.represented)).toBe(true);
    }
  });

  it('is written in chunks as the items come, never announcing a length it holds whole', async () => {
    const source = items(5_000);
    const response = await get(source);
    expect(response.headers['content-length']).toBeUndefined();
    expect(response.headers['transfer-encoding']).toBe('chunked');
    const body = (await response.body.json()) as unknown[];
    expect(body).toHaveLength(5_000);
    expect(source.state.closed).toBe(true);
  });

  it('answers an ordinary problem when the first read fails, before anything is written', async () => {
    const response = await get(items(3, { failFirst: true }));
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(((await response.body.json()) as { status: number }).status).toBe(503);
  });

  it('stops reading and closes the items when the client goes away', async () => {
    const source = items(1_000_000);
    const response = await get(source);
    const chunks = response.body[Symbol.asyncIterator]();
    await chunks.next();
    response.body.destroy();
    await waitFor('the items to be closed', async () => source.state.closed);
    expect(source.state.read).toBeLessThan(1_000_000);
  });
});

