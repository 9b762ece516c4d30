import { setTimeout as sleep } from 'node:timers/promises';
import { decodeProtectedHeader } from 'jose';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '@rm/runtime';
import { testServers, uniqueName, waitFor } from '@rm/testkit';
import { gatewayService } from '../src/app.js';
import { BASE, createClient, dropDatabase, startGateway, tokenFor, type GatewayHarness } from './helpers.js';

const started: GatewayHarness[] = [];
const databases: string[] = [];

afterAll(async () => {
  for (const gateway of started) await gateway.close();
  for (const database of databases) await dropDatabase(database);
});

async function replica(variables: Record<string, string>): Promise<GatewayHarness> {
  const gateway = await startGateway(variables);
  started.push(gateway);
  return gateway;
}

async function publishedKids(gateway: GatewayHarness): Promise<string[]> {
  const { keys } = (await (await gateway.fetch('/.well-known/jwks.json')).json()) as { keys: { kid: string }[] };
  return keys.map((key) => key.kid);
}

async function ping(gateway: GatewayHarness, token: string): Promise<number> {
  return (await gateway.fetch(`${BASE}/ping`, { headers: { Authorization: `Bearer ${token}` } })).status;
}

describe('signing keys', () => {
  it('rotate: a new key is published before it signs, and a retired one stays until its tokens have expired', async () => {
    const database = uniqueName('gateway_keys');
    databases.push(database);
    const gateway = await replica({
      MONGO_DB: database,
      SIGNING_KEY_ROTATION_MS: '3000',
      SIGNING_KEY_PUBLISH_LEAD_MS: '1000',
      SIGNING_KEY_REFRESH_MS: '100',
      SIGNING_KEY_RETENTION_MARGIN_MS: '0',
      TOKEN_LIFETIME_SECONDS: '2',
    });
    const client = await createClient(gateway.registry);
    const first = await tokenFor(gateway, client.clientId, client.secret);
    const firstKid = decodeProtectedHeader(first).kid!;

    // Watch the key set and the tokens until a token carries another key.
    const firstSeen = new Map<string, number>();
    let lastOfFirstKey = first;
    let successor: { token: string; kid: string; at: number } | undefined;
    const deadline = Date.now() + 10_000;
    while (successor === undefined && Date.now() < deadline) {
      for (const kid of await publishedKids(gateway)) if (!firstSeen.has(kid)) firstSeen.set(kid, Date.now());
      const token = await tokenFor(gateway, client.clientId, client.secret);
      const kid = decodeProtectedHeader(token).kid!;
      if (kid === firstKid) lastOfFirstKey = token;
      else successor = { token, kid, at: Date.now() };
      // under the client's token rate (TEST_LIMITS)
      await sleep(200);
    }
    expect(successor).toBeDefined();
    // published about a lead (1 s) before it signed; a refresh (0.1 s) and a poll (0.15 s) of slack
    expect(successor!.at - firstSeen.get(successor!.kid)!).toBeGreaterThan(500);

    // The retired key still verifies its tokens while they live, and is in the key set...
    expect(await ping(gateway, lastOfFirstKey)).toBe(200);
    expect(await publishedKids(gateway)).toContain(firstKid);
    expect(await ping(gateway, successor!.token)).toBe(200);
    // ...and leaves once every token it signed has expired (2 s after the successor took over).
    await waitFor('the retired key to leave the key set', async () => !(await publishedKids(gateway)).includes(firstKid), 10_000);
    expect((await publishedKids(gateway))).toContain(successor!.kid);
  });

  it('are shared by the replicas through the database, private halves encrypted', async () => {
    const database = uniqueName('gateway_shared');
    databases.push(database);
    const one = await replica({ MONGO_DB: database });
    const two = await replica({ MONGO_DB: database });
    const client = await createClient(one.registry);
    const fromOne = await tokenFor(one, client.clientId, client.secret);
    const fromTwo = await tokenFor(two, client.clientId, client.secret);
    expect(decodeProtectedHeader(fromOne).kid).toBe(decodeProtectedHeader(fromTwo).kid);
    expect(await ping(two, fromOne)).toBe(200);
    expect(await ping(one, fromTwo)).toBe(200);

    const mongo = new MongoClient(testServers().mongoUrl);
    try {
      const stored = await mongo.db(database).collection('signing_keys').find({}).toArray();
      expect(stored).toHaveLength(1);
      // an EC private JWK has a `d`; the stored private half is ciphertext only
      expect(JSON.stringify(stored)).not.toMatch(/"d":/);
      expect(stored[0]!.privateJwk).toEqual({ iv: expect.any(String), tag: expect.any(String), ciphertext: expect.any(String) });
    } finally {
      await mongo.close();
    }
  });

  it('refuse to start a replica whose encryption key is not the one the keys were stored with', async () => {
    const database = uniqueName('gateway_wrong_key');
    databases.push(database);
    await replica({ MONGO_DB: database });
    const env = { ...started.at(-1)!.variables, SIGNING_KEY_ENCRYPTION_KEY: 'another-encryption-key-0123456789-abcdefgh' };
    await expect(startService(gatewayService, { env })).rejects.toThrow(/SIGNING_KEY_ENCRYPTION_KEY/);
  });
});
