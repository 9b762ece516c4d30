import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITES_HEADER } from '@rm/contracts';
import { waitFor } from '@rm/testkit';
import { GENERATIONS_PER_TENANT } from '../src/routes/proxy.routes.js';
import { BASE, createClient, startGateway, tokenFor, type GatewayHarness } from './helpers.js';

// POST /import against an owner that answers as the test says: what is checked is how the gateway sends
// the lines (the tenant's rate, the bytes it holds) and how it refuses a body over its limit; and how it
// counts the writes an owner made for one call (a generation's) against the tenant's rate.

const WINDOW_BYTES = 4_096;
const BODY_LIMIT = 65_536;

interface Held {
  path: string;
  answer(): void;
}

let owner: Server;
let gateway: GatewayHarness;
/** Lines the owner holds until the test answers them (their paths start with /employee/held-). */
const held: Held[] = [];
/** Generations the owner never answers. */
const unanswered: ServerResponse[] = [];
let inFlight = 0;
let mostInFlight = 0;

function answer(response: ServerResponse, status: number): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end('{}');
}

beforeAll(async () => {
  owner = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').slice(BASE.length);
    request.resume();
    if (request.method === 'GET') return answer(response, 200);
    if (path === '/availability-generation') return void response.writeHead(200, { 'Content-Type': 'application/json', [WRITES_HEADER]: '12' }).end('{}');
    // a generation that outlasts its caller
    if (path.endsWith('/availability-generation')) return void unanswered.push(response);
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const done = () => {
      inFlight -= 1;
      answer(response, 200);
    };
    if (path.startsWith('/employee/held-')) held.push({ path, answer: done });
    // a moment's work: lines sent together meet here together
    else setTimeout(done, 20);
  });
  await new Promise<void>((resolve) => owner.listen(0, '127.0.0.1', resolve));
  gateway = await startGateway({
    UPSTREAM_EMPLOYEES_URL: `http://127.0.0.1:${(owner.address() as AddressInfo).port}`,
    IMPORT_WINDOW_BYTES: String(WINDOW_BYTES),
    IMPORT_BODY_LIMIT_BYTES: String(BODY_LIMIT),
  });
});

afterAll(async () => {
  for (const line of held.splice(0)) line.answer();
  for (const response of unanswered.splice(0)) response.end();
  await gateway?.close();
  await new Promise((resolve) => owner?.close(resolve));
});

async function tokenOfNewTenant(limits: { requestsPerSecond?: number } = {}): Promise<string> {
  const { tenant, clientId, secret } = await createClient(gateway.registry);
  if (limits.requestsPerSecond !== undefined) await gateway.registry.setTenantLimits(tenant, limits);
  return tokenFor(gateway, clientId, secret);
}

function importLines(token: string, lines: object[]): Promise<Response> {
  return gateway.fetch(`${BASE}/import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson' },
    body: lines.map((line) => JSON.stringify(line)).join('\n'),
  });
}

async function outcomes(response: Response): Promise<{ line: number; status: number }[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { line: number; status: number });
}

const puts = (prefix: string, count: number, body: object = { name: 'x' }) =>
  Array.from({ length: count }, (_unused, index) => ({ method: 'PUT', path: `/employee/${prefix}-${index + 1}`, body }));

describe('POST /import and the limits of its tenant', () => {
  it("counts its lines against the tenant's request rate: they wait for it, and a single call meanwhile is refused", async () => {
    const token = await tokenOfNewTenant({ requestsPerSecond: 5 });
    const importing = importLines(token, puts('held', 10));
    // the import's own request and its first four lines take the tenant's five of this second
    await waitFor('four lines at the owner', async () => held.length >= 4);
    const single = await gateway.fetch(`${BASE}/employee/other`, { headers: { Authorization: `Bearer ${token}` } });
    expect(single.status).toBe(429);
    expect(await single.json()).toMatchObject({ status: 429, limit: 5 });

    // the others follow as the rate allows, none refused
    for (let answered = 0; answered < 10; answered += 1) {
      await waitFor('the next line at the owner', async () => held.length > 0);
      held.shift()!.answer();
    }
    const response = await importing;
    expect(response.status).toBe(200);
    expect(await outcomes(response)).toEqual(Array.from({ length: 10 }, (_unused, index) => ({ line: index + 1, status: 200 })));
  });

  it('holds no more lines than its byte window before their owner has answered them, and still answers every line once, in order', async () => {
    const token = await tokenOfNewTenant();
    // each line about 3 KiB: two of them fill the 4 KiB window
    const lines = puts('window', 12, { name: 'x', notes: 'n'.repeat(3_000) });
    mostInFlight = 0;
    const response = await importLines(token, lines);
    expect(response.status).toBe(200);
    expect(await outcomes(response)).toEqual(lines.map((_line, index) => ({ line: index + 1, status: 200 })));
    expect(mostInFlight).toBeLessThanOrEqual(2);
  });

  it('answers 413 problem+json and closes the connection for a streamed body that grows over the limit', async () => {
    const token = await tokenOfNewTenant();
    const line = `${JSON.stringify({ method: 'PUT', path: '/employee/too-large', body: { notes: 'n'.repeat(1_000) } })}\n`;
    const body = new TextEncoder().encode(line.repeat(Math.ceil((2 * BODY_LIMIT) / line.length)));
    const response = await gateway.fetch(`${BASE}/import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson' },
      // no Content-Length: the limit is met while the body is read
      body: new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(body), controller.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toMatchObject({ status: 413, detail: `The body must not exceed ${BODY_LIMIT} bytes.` });
  });

  it('answers 413 for a declared Content-Length over the limit before any of the body is sent', async () => {
    const token = await tokenOfNewTenant();
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = httpRequest(`${gateway.origin}${BASE}/import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson', 'Content-Length': String(16 * BODY_LIMIT) },
      });
      request.on('response', (answer) => {
        resolve(answer);
        request.destroy();
      });
      request.on('error', reject);
      // the headers alone: a gateway that read the body first would wait for it
      request.flushHeaders();
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers.connection).toBe('close');
  });
});

describe('POST /availability-generation and the rate of its tenant', () => {
  // Found in review: a call that created a thousand availabilities counted as one request.
  it("counts the availabilities a call created against the tenant's request rate, as that many calls, and keeps the count from the caller", async () => {
    const token = await tokenOfNewTenant({ requestsPerSecond: 5 });
    const generation = await gateway.fetch(`${BASE}/availability-generation`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(generation.status).toBe(200);
    expect(generation.headers.has(WRITES_HEADER)).toBe(false);
    // twelve writes at five a second: this second and the next two are taken
    const single = () => gateway.fetch(`${BASE}/employee/other`, { headers: { Authorization: `Bearer ${token}` } });
    const refused = await single();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    await waitFor('the rate to come back', async () => (await single()).status === 200, 10_000);
  });

  // Noticed in review: a burst of generation calls, each one request of the rate, was all admitted before the first charge landed.
  it('lets a tenant have only so many generations under way at once, and the next in when one has answered', async () => {
    const token = await tokenOfNewTenant();
    const generate = (employee: string) =>
      gateway.fetch(`${BASE}/employee/${employee}/availability-generation`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
    const before = unanswered.length;
    const underWay = Array.from({ length: GENERATIONS_PER_TENANT }, (_, index) => generate(`burst-${index}`));
    await waitFor('the generations at the owner', async () => unanswered.length === before + GENERATIONS_PER_TENANT);
    const refused = await generate('burst-next');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ status: 429, limit: GENERATIONS_PER_TENANT });
    // another tenant is not held back
    const otherToken = await tokenOfNewTenant();
    const other = gateway.fetch(`${BASE}/employee/other-tenant/availability-generation`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${otherToken}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    await waitFor('the other tenant at the owner', async () => unanswered.length === before + GENERATIONS_PER_TENANT + 1);

    unanswered[before]!.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    expect((await underWay[0]!).status).toBe(200);
    const next = generate('burst-after');
    await waitFor('the next generation at the owner', async () => unanswered.length === before + GENERATIONS_PER_TENANT + 2);
    for (const response of unanswered.splice(before).slice(1)) response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    expect((await Promise.all([...underWay.slice(1), other, next])).map((answer) => answer.status)).toEqual(Array(GENERATIONS_PER_TENANT + 1).fill(200));
  });

  // Found in review: a caller that hung up before the answer was never charged, while the owner went on.
  it('charges a generation whose answer never came the most one call may write', async () => {
    const token = await tokenOfNewTenant({ requestsPerSecond: 5 });
    const hangingUp = new AbortController();
    const generation = gateway.fetch(`${BASE}/employee/e1/availability-generation`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{}',
      signal: hangingUp.signal,
    });
    await waitFor('the generation at the owner', async () => unanswered.length > 0);
    hangingUp.abort();
    await generation.catch(() => undefined);
    // 1,000 writes at five a second: 200 seconds
    await waitFor('the charge', async () => {
      const refused = await gateway.fetch(`${BASE}/employee/other`, { headers: { Authorization: `Bearer ${token}` } });
      return refused.status === 429 && Number(refused.headers.get('retry-after')) > 100;
    });
  });
});
