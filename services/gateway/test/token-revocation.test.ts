import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers, waitFor } from '@rm/testkit';
import { decodeProtectedHeader } from 'jose';
import { createRevocationStore, type RevocationStore } from '../src/revocations/revocation-store.js';
import { hasSigningKey, removeSigningKey } from '../src/store/signing-key-store.js';
import { BASE, createClient, signIn, tokenFor } from './helpers.js';
import { startStack, type Stack } from './stack.js';

let stack: Stack;
let mongo: MongoClient;
let revocations: RevocationStore;

beforeAll(async () => {
  // keys reloaded often: a revoked key's successor signs within moments
  stack = await startStack({ SIGNING_KEY_REFRESH_MS: '200' });
  mongo = new MongoClient(testServers().mongoUrl);
  revocations = createRevocationStore(mongo.db(stack.gateway.variables.MONGO_DB));
});

afterAll(async () => {
  await mongo?.close();
  await stack?.close();
});

/** The status of a list read with the token, through the gateway and straight at the employees service. */
async function statuses(token: string): Promise<{ gateway: number; owner: number }> {
  const headers = { Authorization: `Bearer ${token}` };
  const gateway = await stack.gateway.fetch(`${BASE}/employee`, { headers });
  const owner = await fetch(`http://127.0.0.1:${stack.owners.employees!.config.PORT}${BASE}/employee`, { headers });
  return { gateway: gateway.status, owner: owner.status };
}

const refusedEverywhere = (token: string) => async () => {
  const now = await statuses(token);
  return now.gateway === 401 && now.owner === 401;
};

/** Tokens are revoked by the second they were issued in: a token of the next second is a new one. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_100));

describe('revoking tokens before they expire', () => {
  it("refuses a client's tokens at the gateway and at every owner, leaves its tenant's other clients alone, and takes its next token", async () => {
    const first = await signIn(stack.gateway);
    const { token } = first;
    const { token: siblingToken } = await signIn(stack.gateway, first.tenant);
    expect(await statuses(token)).toEqual({ gateway: 200, owner: 200 });

    await revocations.revoke('client', first.clientId);
    await waitFor('the revocation to reach the gateway and the employees service', refusedEverywhere(token), 20_000);
    const refusal = await stack.gateway.fetch(`${BASE}/employee`, { headers: { Authorization: `Bearer ${token}` } });
    expect(refusal.headers.get('www-authenticate')).toContain('error_description="the token has been revoked"');
    expect(await statuses(siblingToken)).toEqual({ gateway: 200, owner: 200 });

    await nextSecond();
    expect(await statuses(await tokenFor(stack.gateway, first.clientId, first.secret))).toEqual({ gateway: 200, owner: 200 });
  });

  it("refuses every token of a tenant's clients, and no other tenant's", async () => {
    const one = await signIn(stack.gateway);
    const two = await signIn(stack.gateway, one.tenant);
    const tokens = [one.token, two.token];
    const { token: otherToken } = await signIn(stack.gateway);

    await revocations.revoke('tenant', one.tenant);
    for (const token of tokens) await waitFor("the tenant's revocation everywhere", refusedEverywhere(token), 20_000);
    expect(await statuses(otherToken)).toEqual({ gateway: 200, owner: 200 });
  });

  it('serves the list by digest, naming no client and no tenant', async () => {
    const { clientId, tenant } = await createClient(stack.gateway.registry);
    await revocations.revoke('client', clientId);
    await revocations.revoke('tenant', tenant);
    const list = await waitFor('the list to show them', async () => {
      const response = await fetch(`${stack.gateway.origin}/oauth2/revocations`);
      const text = await response.text();
      const read = JSON.parse(text) as { clients: Record<string, number>; tenants: Record<string, number> };
      return Object.keys(read.tenants).length > 0 && Object.keys(read.clients).length > 0 ? text : undefined;
    });
    expect(list).not.toContain(clientId);
    expect(list).not.toContain(tenant);
  });

  // last: it takes the stack's signing key away
  it("refuses every token of a revoked signing key everywhere, and signs with another key from then on", async () => {
    const { clientId, secret, token } = await signIn(stack.gateway);
    const kid = decodeProtectedHeader(token).kid!;
    const db = mongo.db(stack.gateway.variables.MONGO_DB);
    expect(await hasSigningKey(db, kid)).toBe(true);

    // as `npm run clients -- revoke --key` does
    await revocations.revoke('key', kid);
    await removeSigningKey(db, kid);
    await waitFor("the key's revocation everywhere", refusedEverywhere(token), 20_000);

    const fresh = await waitFor('a token of another key', async () => {
      // a 429 of the client's token rate only means: ask again
      const next = await tokenFor(stack.gateway, clientId, secret).catch(() => undefined);
      return next !== undefined && decodeProtectedHeader(next).kid !== kid ? next : undefined;
    }, 20_000);
    // the gateway knows the new key at once; an owner fetches it when it first meets it, at most every 30 s (jose's cooldown)
    expect((await stack.gateway.fetch(`${BASE}/ping`, { headers: { Authorization: `Bearer ${fresh}` } })).status).toBe(200);
  });
});
