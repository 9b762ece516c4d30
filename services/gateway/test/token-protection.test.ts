import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, uniqueName, waitFor } from '@rm/testkit';
import { basic, BASE, createClient, dropDatabase, FORM, freshIp, startGateway, TEST_LIMITS, type GatewayHarness } from './helpers.js';

const RATE = Number(TEST_LIMITS.TOKEN_RATE_LIMIT);
const PER_CLIENT = Number(TEST_LIMITS.TOKEN_RATE_LIMIT_PER_CLIENT);
const FAILURES = Number(TEST_LIMITS.LOGIN_FAILURE_LIMIT);
const database = uniqueName('gateway_guard');
let one: GatewayHarness;
let two: GatewayHarness;
let untrusting: GatewayHarness | undefined;
let narrow: GatewayHarness | undefined;
let proxied: GatewayHarness | undefined;
let client: { clientId: string; secret: string };

// Two replicas of one gateway: same database, same NATS, nothing shared in memory.
beforeAll(async () => {
  one = await startGateway({ MONGO_DB: database });
  two = await startGateway({ MONGO_DB: database });
  client = await createClient(one.registry);
});

afterAll(async () => {
  for (const gateway of [one, two, untrusting, narrow, proxied]) await gateway?.close();
  await dropDatabase(database);
});

/** A cheap token request (400: no grant_type) unless the rate limit answers first. */
function unauthenticatedRequest(gateway: GatewayHarness, ip: string): Promise<Response> {
  return gateway.fetch('/oauth2/token', { method: 'POST', ip, headers: FORM, body: 'scope=' });
}

/** A client_credentials token request with the client's id and secret. */
function tokenRequest(gateway: GatewayHarness, ip: string, { clientId, secret }: { clientId: string; secret: string }): Promise<Response> {
  return gateway.fetch('/oauth2/token', { method: 'POST', ip, headers: { ...FORM, Authorization: basic(clientId, secret) }, body: 'grant_type=client_credentials' });
}

function wrongLogin(gateway: GatewayHarness, ip: string): Promise<Response> {
  return tokenRequest(gateway, ip, { ...client, secret: 'wrong' });
}

/**
 * Sends `limit + over` requests at once, alternating between the two replicas, and expects `limit` of them
 * answered with `servedStatus` and the other `over` refused with 429 and Retry-After: 1; returns a refused one.
 */
async function expectLimitAcrossReplicas(
  { limit, over, servedStatus }: { limit: number; over: number; servedStatus: number },
  send: (gateway: GatewayHarness) => Promise<Response>,
): Promise<Response> {
  const responses = await Promise.all(Array.from({ length: limit + over }, (_, index) => send(index % 2 === 0 ? one : two)));
  const statuses = responses.map((response) => response.status);
  expect(statuses.filter((status) => status === servedStatus)).toHaveLength(limit);
  expect(statuses.filter((status) => status === 429)).toHaveLength(over);
  const limited = responses.find((response) => response.status === 429)!;
  expect(limited.headers.get('retry-after')).toBe('1');
  return limited;
}

describe('token endpoint protection across two replicas', () => {
  it('accepts at most the rate limit per second from one IP, whichever replica answers; the rest get 429 with Retry-After', async () => {
    const ip = freshIp();
    const limited = await expectLimitAcrossReplicas({ limit: RATE, over: 8, servedStatus: 400 }, (gateway) => unauthenticatedRequest(gateway, ip));
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    // another IP is not affected, and the IP itself is served again a second later
    expect((await unauthenticatedRequest(two, freshIp())).status).toBe(400);
    await sleep(1_100);
    expect((await unauthenticatedRequest(one, ip)).status).toBe(400);
  });

  // Before, one client id could have its secret hashed as often as its addresses allowed.
  it('accepts at most the rate per client id per second, from any addresses, whichever replica answers; another client is not affected', async () => {
    const [flooding, other] = [await createClient(one.registry), await createClient(one.registry)];
    const login = (gateway: GatewayHarness, credentials: { clientId: string; secret: string }) => tokenRequest(gateway, freshIp(), credentials);
    const limited = await expectLimitAcrossReplicas({ limit: PER_CLIENT, over: 4, servedStatus: 200 }, (gateway) => login(gateway, flooding));
    expect(((await limited.json()) as { detail: string }).detail).toContain('for this client');

    expect((await login(two, other)).status).toBe(200);
    await sleep(1_100);
    expect((await login(one, flooding)).status).toBe(200);
  });

  it('blocks an IP that keeps failing to log in on every replica: its connections to the token endpoint are closed, nothing else', async () => {
    const ip = freshIp();
    for (let attempt = 1; attempt < FAILURES; attempt += 1) expect((await wrongLogin(attempt % 2 === 0 ? one : two, ip)).status).toBe(401);
    // the failure that reaches the limit is still answered, and blocks
    expect((await wrongLogin(one, ip)).status).toBe(401);

    for (const gateway of [one, two]) {
      await waitFor('the block to reach the replica', async () => (await gateway.fetch('/oauth2/token', { method: 'POST', ip, headers: FORM, body: '' }).then(() => false, () => true)) || undefined);
      // the right secret does not help, nor does the API
      await expect(tokenRequest(gateway, ip, client)).rejects.toThrow();
      // the probes, the key set, metrics and the API answer it as anyone (a blocked node address must not fail the probes)
      for (const path of ['/healthz', '/readyz', '/.well-known/jwks.json', '/metrics']) expect((await gateway.fetch(path, { ip })).status).toBe(200);
      expect((await gateway.fetch(`${BASE}/ping`, { ip })).status).toBe(401);
    }
    // other addresses log in as before
    expect((await tokenRequest(one, freshIp(), client)).status).toBe(200);
  });

  it('answers 503 with Retry-After, at once, while as many secrets as it checks at once and may queue are being checked', async () => {
    // A slow hash (cost 16, some 270 ms) for every request: unknown clients are hashed against the
    // decoy, and no verified secret skips the hash. With the test cost (about 1 ms), and a client
    // whose secret was verified moments before, requests staggered by a busy machine never met.
    narrow = await startGateway({ MONGO_DB: database, TOKEN_HASH_CONCURRENCY: '1', TOKEN_HASH_QUEUE: '0', CLIENT_SECRET_HASH_COST: '16' });
    const unknown = (index: number) => ({ clientId: uniqueName(`nobody${index}`), secret: 'whatever' });
    const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => tokenRequest(narrow!, freshIp(), unknown(index))));
    const busy = responses.filter((response) => response.status === 503);
    const checked = responses.filter((response) => response.status === 401);
    expect(checked.length).toBeGreaterThanOrEqual(1);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    expect(busy.length + checked.length).toBe(8);
    expect(busy[0]?.headers.get('retry-after')).toBe('1');
    expect(await busy[0]?.json()).toMatchObject({ status: 503, detail: 'The token endpoint is checking as many client secrets as it can; retry in a second.' });
    // and a client that retries is served
    expect((await tokenRequest(narrow, freshIp(), await createClient(narrow.registry))).status).toBe(200);
  });

  it('takes the client IP from X-Forwarded-For only from a trusted proxy', async () => {
    untrusting = await startGateway({ MONGO_DB: database, TRUST_PROXY: '' });
    // every request claims another address, but all come from 127.0.0.1, which is not trusted: one IP
    const responses = await Promise.all(Array.from({ length: RATE + 2 }, () => unauthenticatedRequest(untrusting!, freshIp())));
    expect(responses.filter((response) => response.status === 429)).toHaveLength(2);
  });

  it('never blocks the address of a trusted proxy, which every client behind it shares', async () => {
    // a second proxy in front of 127.0.0.1 that says nothing of its own clients: its address is all there is
    proxied = await startGateway({ MONGO_DB: database, TRUST_PROXY: '127.0.0.1, 10.254.0.0/16' });
    const proxy = `10.254.${randomInt(256)}.${randomInt(1, 255)}`;
    const own = await createClient(proxied.registry);
    const login = (secret: string) => tokenRequest(proxied!, proxy, { ...own, secret });
    for (let attempt = 0; attempt <= FAILURES; attempt += 1) expect((await login('wrong')).status).toBe(401);
    expect((await login(own.secret)).status).toBe(200);
  });
});

describe('token endpoint protection after its nats-server restarts', () => {
  // Found by the reliability suite: a restarted server keeps only file streams, and the counting
  // streams are in memory, so every token request was a 503 until the gateway itself restarted.
  it('declares its counting streams again and serves tokens, with the limits still counted', async () => {
    const nats = await startNatsServer();
    const own = uniqueName('gateway_guard_restart');
    const gateway = await startGateway({ MONGO_DB: own, NATS_URL: nats.url });
    try {
      const credentials = await createClient(gateway.registry);
      expect((await tokenRequest(gateway, freshIp(), credentials)).status).toBe(200);
      await nats.restart();
      await waitFor('a token after the restart', async () => (await tokenRequest(gateway, freshIp(), credentials)).status === 200, 20_000);
      const ip = freshIp();
      const statuses = await Promise.all(Array.from({ length: RATE + 3 }, async () => (await unauthenticatedRequest(gateway, ip)).status));
      expect(statuses.filter((status) => status === 429)).toHaveLength(3);
    } finally {
      await gateway.close();
      await nats.stop();
      await dropDatabase(own);
    }
  });
});
