import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { waitFor } from '@rm/testkit';
import { ApiError, createClient, type ApiClient, type CallOptions, type ClientOptions, type Data, type Item, type Problem, type RequestBody } from '../src/index.js';
import { quickStart } from '../examples/quick-start.ts';
import { startClientStack, type ClientStack } from './stack.ts';

/** Short-lived tokens (renewed after 85 % of 4 s), and a tenant rate a burst of calls exceeds. */
const TOKEN_LIFETIME_SECONDS = 4;
const TENANT_REQUEST_RATE = 20;

const employee = (city: string): RequestBody<'upsertEmployee'> => ({
  name: { first_name: 'Sanne', last_name: 'van den Berg' },
  driver_skills: ['C', 'CE'],
  start_location: { name: `Depot ${city}`, city, zip_code: '5000', country_code: 'NL' },
});
const availability: RequestBody<'addEmployeeAvailability'> = { earliest_start: '2026-12-07T06:00:00Z', max_duration: 'PT9H' };

let stack: ClientStack;

beforeAll(async () => {
  stack = await startClientStack({ TOKEN_LIFETIME_SECONDS: String(TOKEN_LIFETIME_SECONDS), TENANT_REQUEST_RATE: String(TENANT_REQUEST_RATE) });
});

afterAll(async () => {
  await stack?.stop();
});

/** What went over the wire: the token requests and every API answer's status. */
interface Wire {
  tokenRequests: number;
  statuses: number[];
}

/** A client of a new tenant, over a fetch that records what it sent and received (and may meddle, to stage a failure). */
async function newClient(
  options: Partial<ClientOptions> = {},
  meddle?: (request: Request, send: (request: Request) => Promise<Response>) => Promise<Response>,
): Promise<{ client: ApiClient; wire: Wire }> {
  const wire: Wire = { tokenRequests: 0, statuses: [] };
  const send = (request: Request) => fetch(request);
  const recording = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.url === stack.tokenUrl) {
      wire.tokenRequests++;
      return send(request);
    }
    const response = await (meddle === undefined ? send(request) : meddle(request, send));
    wire.statuses.push(response.status);
    return response;
  };
  const client = createClient({ baseUrl: stack.baseUrl, tokenUrl: stack.tokenUrl, ...(await stack.newClient()), fetch: recording, ...options });
  return { client, wire };
}

describe('the typed client against the whole stack', () => {
  it('is typed from the API document: arguments in path order, bodies, answers, list items and problems', () => {
    expectTypeOf<Parameters<ApiClient['upsertTransportResource']>>().toEqualTypeOf<
      [transport_resource_id: string, body: RequestBody<'upsertTransportResource'>, options?: CallOptions<'upsertTransportResource'>]
    >();
    expectTypeOf<Parameters<ApiClient['getEmployeeAvailability']>>().toEqualTypeOf<[string, string, options?: CallOptions<'getEmployeeAvailability'>]>();
    expectTypeOf<Data<'getEmployee'>>().toHaveProperty('business_id');
    expectTypeOf<Data<'deleteEmployee'>>().toEqualTypeOf<undefined>();
    expectTypeOf<Data<'ping'>>().toEqualTypeOf<string>();
    expectTypeOf<Item<'getPagedEmployees'>>().toEqualTypeOf<Data<'getEmployee'>>();
    expectTypeOf<ApiError['problem']>().toEqualTypeOf<Problem | undefined>();
    // If-Match only where a write may be conditional, Idempotency-Key only on a create
    expectTypeOf<CallOptions<'upsertEmployee'>>().toHaveProperty('ifMatch');
    expectTypeOf<CallOptions<'getEmployee'>>().not.toHaveProperty('ifMatch');
    expectTypeOf<CallOptions<'addEmployeeAvailability'>>().toHaveProperty('idempotencyKey');
    expectTypeOf<CallOptions<'upsertEmployee'>>().not.toHaveProperty('idempotencyKey');
  });

  it("runs the README's quick start", async () => {
    const { client } = await newClient();
    const { availabilityUrl, employees, violations } = await quickStart(client);
    expect(availabilityUrl).toMatch(/\/employee\/emp-1042\/availability\/[0-9a-f-]{36}$/);
    expect(employees).toEqual(['emp-1042']);
    expect(violations).toEqual(['earliest_start']);
  });

  it('calls each operation by its operationId with typed bodies and answers, and the ETag for If-Match', async () => {
    const { client, wire } = await newClient();
    expect((await client.ping()).data).toBe('pong');
    const created = await client.upsertEmployee('emp-1', employee('Tilburg'));
    expect(created.status).toBe(201);
    expect(created.etag).toBe('W/"1"');
    expect(created.location).toMatch(/\/employee\/emp-1$/);
    const read = await client.getEmployee('emp-1');
    expect(read.data.name).toEqual({ first_name: 'Sanne', last_name: 'van den Berg' });
    // a write against the version read: by its ETag, or by its number
    expect((await client.upsertEmployee('emp-1', employee('Breda'), { ifMatch: read.etag })).status).toBe(200);
    const stale = await client.upsertEmployee('emp-1', employee('Gent'), { ifMatch: 1 }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(ApiError);
    expect(stale).toMatchObject({ status: 412, problem: { title: 'Precondition Failed' } });
    expect((await client.deleteEmployee('emp-1')).data).toBeUndefined();
    // one token for all of it
    expect(wire.tokenRequests).toBe(1);
  });

  it('throws the problem of a refused request, with each violation', async () => {
    const { client } = await newClient();
    const refused = await client.addEmployeeAvailability('nobody', availability).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 404, problem: { detail: "employee 'nobody' does not exist" } });
    await client.upsertEmployee('emp-2', employee('Tilburg'));
    const invalid = await client.addEmployeeAvailability('emp-2', { ...availability, max_duration: 'eight hours' }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, problem: { violations: [expect.objectContaining({ field: 'max_duration' })] } });
  });

  it('lists a paged collection as one async iterator over every page', async () => {
    const { client } = await newClient();
    const ids = Array.from({ length: 7 }, (_, index) => `emp-${index}`);
    for (const id of ids) await client.upsertEmployee(id, employee('Tilburg'));
    const listed: string[] = [];
    for await (const each of client.each.getPagedEmployees({ query: { limit: 3 } })) listed.push(each.business_id);
    // in the list's own stable order, each once
    expect(listed.sort()).toEqual(ids);
  });

  it('gets a token on first use, renews it once 85 % of its lifetime has passed, and once when the API refuses it', async () => {
    let spoil = false;
    const { client, wire } = await newClient({}, (request, send) => {
      if (spoil) {
        spoil = false;
        request.headers.set('authorization', 'Bearer an.expired.token');
      }
      return send(request);
    });
    expect(wire.tokenRequests).toBe(0);
    await client.ping();
    expect(wire.tokenRequests).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, TOKEN_LIFETIME_SECONDS * 1000 * 0.9));
    await client.ping();
    expect(wire.tokenRequests).toBe(2);
    // refused as invalid_token: renewed, and the call sent again
    spoil = true;
    expect((await client.ping()).data).toBe('pong');
    expect(wire.statuses.slice(-2)).toEqual([401, 200]);
    expect(wire.tokenRequests).toBe(3);
  });

  it('throws at once when the token endpoint refuses the credentials: one failed login, not one per retry', async () => {
    const { client, wire } = await newClient({ clientSecret: 'not-the-secret' });
    await expect(client.ping()).rejects.toMatchObject({ name: 'ApiError', status: 401 });
    expect(wire.tokenRequests).toBe(1);
    expect(wire.statuses).toEqual([]);
  });

  it('sends the id and secret in the form instead when asked (client_secret_post): a refusal then carries no Basic challenge', async () => {
    const { client } = await newClient({ clientAuthentication: 'client_secret_post' });
    expect((await client.ping()).data).toBe('pong');
    const refused = await newClient({ clientAuthentication: 'client_secret_post', clientSecret: 'not-the-secret' });
    const error = await refused.client.ping().catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: 'ApiError', status: 401 });
    // what would open a browser's login dialog
    expect((error as { headers?: Headers }).headers?.get('www-authenticate') ?? null).toBeNull();
  });

  it("waits out the tenant's rate limit as Retry-After says, so that a burst of calls all succeed", async () => {
    const { client, wire } = await newClient();
    const answers = await Promise.all(Array.from({ length: TENANT_REQUEST_RATE * 2 }, () => client.getPagedEmployees()));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: TENANT_REQUEST_RATE * 2 }, () => 200));
    expect(wire.statuses).toContain(429);
  });

  it('sends a create again with the same Idempotency-Key when its answer was lost, and it creates once', async () => {
    let loseNext = true;
    const { client, wire } = await newClient({}, async (request, send) => {
      const response = await send(request);
      if (request.method === 'POST' && loseNext) {
        loseNext = false;
        throw new TypeError('fetch failed: the connection closed before the answer');
      }
      return response;
    });
    await client.upsertEmployee('emp-3', employee('Tilburg'));
    const created = await client.addEmployeeAvailability('emp-3', availability);
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBe('true');
    expect((await client.getEmployeeAvailabilities('emp-3')).data).toHaveLength(1);
    // the upsert, the create sent again (its first answer was lost), the list
    expect(wire.statuses).toEqual([201, 201, 200]);
  });

  it('retries while a service restarts (503, Retry-After) and then answers', async () => {
    const { client, wire } = await newClient({ retries: 30 });
    await client.upsertEmployee('emp-4', employee('Tilburg'));
    await stack.stack.kill('employees');
    const read = client.getEmployee('emp-4');
    // restarted only once the client has been answered 503: a retry, not its first try, reaches the restarted service
    await waitFor('the client to be answered 503', async () => wire.statuses.includes(503), 10_000);
    await stack.stack.restart('employees');
    expect((await read).data.name?.first_name).toBe('Sanne');
    expect(wire.statuses).toContain(503);
  });
});

describe('the typed client with the change feed and imports', () => {
  it('imports lines and follows the changes they make, from now and again from a position', async () => {
    const { client } = await newClient();
    const feed = client.changes({ types: ['employee.*'] })[Symbol.asyncIterator]();
    const first = feed.next();
    const outcomes = [];
    for await (const outcome of client.importLines([
      { method: 'PUT', path: '/employee/imp-1', body: employee('Breda') },
      { method: 'POST', path: '/employee/imp-1/availability', body: availability, headers: { 'idempotency-key': 'imp-1-first' } },
      { method: 'DELETE', path: '/employee/nobody' },
    ])) {
      outcomes.push(outcome);
    }
    expect(outcomes.map(({ line, status }) => [line, status])).toEqual([
      [1, 201],
      [2, 201],
      [3, 404],
    ]);
    expect(outcomes[2]!.problem).toMatchObject({ status: 404 });

    const { value: created } = await first;
    expect(created!.event).toMatchObject({ type: 'employee.created', entity_id: 'imp-1', version: 1, data: (await client.getEmployee('imp-1')).data });
    await feed.return!();

    await client.upsertEmployee('imp-1', employee('Venlo'));
    const resumed = client.changes({ types: ['employee.*'], after: created!.position })[Symbol.asyncIterator]();
    const { value: next } = await resumed.next();
    expect(next!.event).toMatchObject({ type: 'employee.updated', entity_id: 'imp-1', version: 2 });
    await resumed.return!();
  });

  it('throws the feed\'s refusal as an ApiError instead of reconnecting, and says the feed is closed', async () => {
    const { client } = await newClient();
    const connections: boolean[] = [];
    const feed = client.changes({ types: ['truck.*'], onConnection: (open) => connections.push(open) })[Symbol.asyncIterator]();
    await expect(feed.next()).rejects.toMatchObject({ name: 'ApiError', status: 400 });
    expect(connections).toEqual([false]);
  });

  it('says when the feed is open, when its connection is lost, and when it is open again (onConnection)', async () => {
    let feedRequests = 0;
    // the first connection is accepted and then ends at once, as when a proxy drops it
    const { client } = await newClient({}, async (request, send) =>
      request.url.includes('/changes?') && feedRequests++ === 0 ? new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } }) : send(request),
    );
    const connections: boolean[] = [];
    const feed = client.changes({ types: ['employee.*'], onConnection: (open) => connections.push(open) })[Symbol.asyncIterator]();
    const first = feed.next();
    await waitFor('the feed to be opened again', async () => connections.length >= 3);
    expect(connections).toEqual([true, false, true]);
    await client.upsertEmployee('conn-1', employee('Tilburg'));
    expect((await first).value!.event).toMatchObject({ type: 'employee.created', entity_id: 'conn-1' });
    await feed.return!();
    expect(connections).toEqual([true, false, true]);
  });
});

describe('the typed client against a server that never answers', () => {
  it('gives up each attempt after timeoutMs, asks once more, and then throws: no call waits forever', async () => {
    let requests = 0;
    const silent: Server = createServer(() => void requests++);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const client = createClient({ baseUrl: origin, tokenUrl: `${origin}/oauth2/token`, clientId: 'c', clientSecret: 's', timeoutMs: 200, retries: 1 });
      await expect(client.ping()).rejects.toMatchObject({ name: 'TimeoutError' });
      // the token request, and once more after the first timed out; nothing more
      expect(requests).toBe(2);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('the typed client importing through a gateway that refuses', () => {
  // Found in review: the import went through the retrying fetch, whose clone of the request held the whole
  // streamed body in memory for a retry.
  it('sends an import once, streamed, and throws a refusal instead of sending it again', async () => {
    const imports: number[] = [];
    const busy: Server = createServer((request, response) => {
      if (request.url === '/oauth2/token') {
        request.resume();
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 3600 }));
      }
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.length));
      request.on('end', () => {
        imports.push(bytes);
        response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '0' }).end(JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'busy' }));
      });
    });
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(busy.address() as AddressInfo).port}`;
    try {
      const client = createClient({ baseUrl: origin, tokenUrl: `${origin}/oauth2/token`, clientId: 'c', clientSecret: 's' });
      const lines = Array.from({ length: 100 }, (_, index) => ({ method: 'PUT' as const, path: `/employee/e${index}`, body: {} }));
      const outcomes = async () => {
        for await (const _outcome of client.importLines(lines)) void _outcome;
      };
      await expect(outcomes()).rejects.toMatchObject({ status: 503 });
      expect(imports).toHaveLength(1);
      expect(imports[0]).toBe(lines.map((line) => `${JSON.stringify(line)}\n`).join('').length);
    } finally {
      busy.closeAllConnections();
      busy.close();
    }
  });

  it('asks for a new token for the next import when the API refused the token of one', async () => {
    let tokensIssued = 0;
    const refusing: Server = createServer((request, response) => {
      request.resume();
      if (request.url === '/oauth2/token') {
        tokensIssued += 1;
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: `t${tokensIssued}`, token_type: 'Bearer', expires_in: 3600 }));
      }
      request.on('end', () => response.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end());
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    try {
      const client = createClient({ baseUrl: origin, tokenUrl: `${origin}/oauth2/token`, clientId: 'c', clientSecret: 's' });
      const attempt = async () => {
        for await (const _outcome of client.importLines([{ method: 'PUT', path: '/employee/e1', body: {} }])) void _outcome;
      };
      await expect(attempt()).rejects.toMatchObject({ status: 401 });
      await expect(attempt()).rejects.toMatchObject({ status: 401 });
      expect(tokensIssued).toBe(2);
    } finally {
      refusing.closeAllConnections();
      refusing.close();
    }
  });
});
