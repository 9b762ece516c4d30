import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers, uniqueName } from '@rm/testkit';
import { createVerifiedSecrets } from '../src/domain/verified-secrets.js';
import { createClientRegistry, type ClientRegistry, type HashSlot } from '../src/store/client-registry.js';
import { dropDatabase } from './helpers.js';

describe('verified secrets', () => {
  it('recognise the secret they were told of, for the stored hash it matched, until they forget it', () => {
    const clock = { now: 0 };
    const secrets = createVerifiedSecrets({ now: () => clock.now });
    secrets.remember('c1', 'hash-1', 'right');
    expect(secrets.recognises('c1', 'hash-1', 'right')).toBe(true);
    expect(secrets.recognises('c1', 'hash-1', 'wrong')).toBe(false);
    expect(secrets.recognises('c1', 'hash-2', 'right')).toBe(false);
    expect(secrets.recognises('c2', 'hash-1', 'right')).toBe(false);
    clock.now += 15 * 60_000;
    expect(secrets.recognises('c1', 'hash-1', 'right')).toBe(false);
  });
});

describe('authenticating a client again', () => {
  const database = uniqueName('gateway_verified');
  let mongo: MongoClient;
  let registry: ClientRegistry;
  let hashes = 0;
  const countingSlot: HashSlot = (hash) => {
    hashes += 1;
    return hash();
  };

  beforeAll(async () => {
    mongo = new MongoClient(testServers().mongoUrl);
    registry = createClientRegistry(mongo.db(database), { hashCost: 10 });
  });
  afterAll(async () => {
    await mongo?.close();
    await dropDatabase(database);
  });

  it('hashes the secret once, not again while it is right; a wrong one, a rotated one and a disabled client are checked as before', async () => {
    await registry.createTenant('t-verified');
    const { clientId, secret } = await registry.createClient({ tenant: 't-verified' });
    const hashed = async (presented: string) => {
      const before = hashes;
      const client = await registry.authenticate(clientId, presented, countingSlot);
      return { accepted: client !== undefined, hashes: hashes - before };
    };

    expect(await hashed(secret)).toEqual({ accepted: true, hashes: 1 });
    expect(await hashed(secret)).toEqual({ accepted: true, hashes: 0 });
    expect(await hashed(`${secret}x`)).toEqual({ accepted: false, hashes: 1 });
    expect(await registry.authenticate('no-such-client', secret, countingSlot)).toBeUndefined();

    const rotated = await registry.rotateSecret(clientId);
    expect(await hashed(secret)).toEqual({ accepted: false, hashes: 1 });
    expect(await hashed(rotated)).toEqual({ accepted: true, hashes: 1 });
    expect(await hashed(rotated)).toEqual({ accepted: true, hashes: 0 });

    await registry.setDisabled(clientId, true);
    expect(await hashed(rotated)).toEqual({ accepted: false, hashes: 1 });
  });
});
