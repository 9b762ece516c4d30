import { createCipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '@rm/runtime';
import { testServers, uniqueName, waitFor } from '@rm/testkit';
import { gatewayService } from '../src/app.js';
import { createSigningKeyStore, SigningKeyDecryptionError, type SigningKeyStore, type StoredSigningKey } from '../src/store/signing-key-store.js';
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
      // under the client's token rate (TEST_LIMITS: 6 a second): a 429 only means ask again
      const token = await tokenFor(gateway, client.clientId, client.secret).catch(() => undefined);
      if (token !== undefined) {
        const kid = decodeProtectedHeader(token).kid!;
        if (kid === firstKid) lastOfFirstKey = token;
        else successor = { token, kid, at: Date.now() };
      }
      await sleep(250);
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
      expect(stored[0]!.privateJwk).toEqual({ iv: expect.any(String), tag: expect.any(String), ciphertext: expect.any(String), bound: true });
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

describe('the signing-key records', () => {
  const SECRET = 'store-test-encryption-key-0123456789abcdef';
  const NEXT_SECRET = 'store-test-next-encryption-key-0123456789ab';
  let mongo: MongoClient;
  let db: Db;

  beforeAll(async () => {
    mongo = new MongoClient(testServers().mongoUrl);
    const database = uniqueName('gateway_key_records');
    databases.push(database);
    db = mongo.db(database);
  });
  afterAll(() => mongo?.close());

  async function storedKey(link: string): Promise<StoredSigningKey> {
    const kid = randomUUID();
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const key = { link, kid, alg: 'ES256', activeFrom: Date.now(), publicJwk: { ...(await exportJWK(publicKey)), kid }, privateJwk: await exportJWK(privateKey) };
    expect(await createSigningKeyStore(db, SECRET).add(key)).toBe(true);
    return key;
  }
  const records = () => db.collection('signing_keys');
  const loaded = async (store: SigningKeyStore, kid: string) => (await store.all()).find((key) => key.kid === kid);

  it("do not decrypt once the record's alg, start or kid was changed", async () => {
    for (const change of [{ alg: 'RS256' }, { activeFrom: new Date(0) }, { kid: randomUUID() }]) {
      const key = await storedKey(uniqueName('changed'));
      await records().updateOne({ _id: key.link as never }, { $set: change });
      await expect(createSigningKeyStore(db, SECRET).all()).rejects.toBeInstanceOf(SigningKeyDecryptionError);
      await records().deleteOne({ _id: key.link as never });
    }
  });

  it('give the public key of the private key, whatever public key the record holds', async () => {
    const key = await storedKey(uniqueName('public'));
    const { publicKey: planted } = await generateKeyPair('ES256', { extractable: true });
    await records().updateOne({ _id: key.link as never }, { $set: { publicJwk: await exportJWK(planted) } });
    const read = await loaded(createSigningKeyStore(db, SECRET), key.kid);
    expect(read?.publicJwk).toMatchObject({ x: key.publicJwk.x, y: key.publicJwk.y, kid: key.kid, alg: 'ES256' });
    await records().deleteOne({ _id: key.link as never });
  });

  it('read a record sealed before the binding, and seal it again bound', async () => {
    const key = await storedKey(uniqueName('legacy'));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', SECRET, 'rm-gateway', 'signing-key-encryption', 32)), iv).setAAD(Buffer.from(key.kid));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(key.privateJwk), 'utf8'), cipher.final()]);
    const legacy = { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
    await records().updateOne({ _id: key.link as never }, { $set: { privateJwk: legacy } });

    expect((await loaded(createSigningKeyStore(db, SECRET), key.kid))?.privateJwk).toEqual(key.privateJwk);
    const record = await records().findOne({ _id: key.link as never });
    expect(record?.privateJwk).toMatchObject({ bound: true });
    expect(record?.privateJwk.ciphertext).not.toBe(legacy.ciphertext);
    await records().deleteOne({ _id: key.link as never });
  });

  it('are sealed again under a new encryption key while the previous one is given, and then read with the new one alone', async () => {
    const key = await storedKey(uniqueName('reencrypted'));
    await expect(createSigningKeyStore(db, NEXT_SECRET).all()).rejects.toBeInstanceOf(SigningKeyDecryptionError);
    expect((await loaded(createSigningKeyStore(db, NEXT_SECRET, SECRET), key.kid))?.privateJwk).toEqual(key.privateJwk);
    expect((await loaded(createSigningKeyStore(db, NEXT_SECRET), key.kid))?.privateJwk).toEqual(key.privateJwk);
    await expect(createSigningKeyStore(db, SECRET).all()).rejects.toBeInstanceOf(SigningKeyDecryptionError);
    await records().deleteOne({ _id: key.link as never });
  });
});
