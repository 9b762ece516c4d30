import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers } from '@rm/testkit';
import { hashCostOf } from '../src/domain/client-secret.js';
import { createClientRegistry } from '../src/store/client-registry.js';
import { basic, createClient, dropDatabase, FORM, freshIp, startGateway, tokenFor, ISSUER, AUDIENCE, type GatewayHarness } from './helpers.js';

let gateway: GatewayHarness;
let mongo: MongoClient;
let client: { tenant: string; clientId: string; secret: string };

beforeAll(async () => {
  gateway = await startGateway();
  client = await createClient(gateway.registry);
  mongo = new MongoClient(testServers().mongoUrl);
});

afterAll(async () => {
  await mongo.close();
  await gateway.close();
  await dropDatabase(gateway.variables.MONGO_DB!);
});

/** A token request from an address of its own, so that the rate limit and failure count stay the test's. */
function requestToken(init: { headers?: Record<string, string>; body?: string }, ip = freshIp()): Promise<Response> {
  return gateway.fetch('/oauth2/token', { method: 'POST', ip, headers: init.headers, body: init.body });
}

async function expectOAuthError(response: Response, status: number, error: string): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

describe('the token endpoint', () => {
  it('issues a token for HTTP Basic credentials with exactly the spec fields, not cached', async () => {
    const response = await requestToken({ headers: { ...FORM, Authorization: basic(client.clientId, client.secret) }, body: 'grant_type=client_credentials' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'not-before-policy', 'refresh_expires_in', 'scope', 'token_type']);
    expect(body).toMatchObject({ expires_in: 300, refresh_expires_in: 0, scope: '', token_type: 'Bearer', 'not-before-policy': 0 });
  });

  it('issues a token for credentials in the form body', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret });
    const response = await requestToken({ headers: FORM, body: form.toString() });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { token_type: string }).token_type).toBe('Bearer');
  });

  it('signs a JWT with a kid, verifiable with the published key set, carrying issuer, audience, client, tenant, times and a unique id', async () => {
    const first = await tokenFor(gateway, client.clientId, client.secret, freshIp());
    const second = await tokenFor(gateway, client.clientId, client.secret, freshIp());
    const jwks = (await (await gateway.fetch('/.well-known/jwks.json')).json()) as { keys: { kid: string; d?: string }[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);
    const header = decodeProtectedHeader(first);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(jwks.keys.map((key) => key.kid)).toContain(header.kid);
    const { payload } = await jwtVerify(first, createLocalJWKSet(jwks as never), { issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256'] });
    expect(payload).toMatchObject({ sub: client.clientId, client_id: client.clientId, tenant: client.tenant });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(30);
    const { payload: other } = await jwtVerify(second, createLocalJWKSet(jwks as never));
    expect(typeof payload.jti).toBe('string');
    expect(other.jti).not.toBe(payload.jti);
  });

  it('advertises the token URL and key set under the issuer in RFC 8414 metadata, whatever Host the caller sends', async () => {
    const response = await gateway.fetch('/.well-known/oauth-authorization-server', { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example.com' } });
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: ISSUER,
      token_endpoint: `${ISSUER}/oauth2/token`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
  });

  it('refuses both authentication methods at once with invalid_request', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret });
    const response = await requestToken({ headers: { ...FORM, Authorization: basic(client.clientId, client.secret) }, body: form.toString() });
    await expectOAuthError(response, 400, 'invalid_request');
  });

  it.each([
    ['a missing grant_type', FORM, ''],
    ['a repeated parameter', FORM, 'grant_type=client_credentials&grant_type=client_credentials'],
    ['a JSON body', { 'Content-Type': 'application/json' }, '{"grant_type":"client_credentials"}'],
    ['no content type', {}, 'grant_type=client_credentials'],
  ])('answers %s with 400 invalid_request', async (_case, headers, body) => {
    const response = await requestToken({ headers: { ...headers, Authorization: basic(client.clientId, client.secret) }, body });
    await expectOAuthError(response, 400, 'invalid_request');
  });

  it('answers another grant type with 400 unsupported_grant_type', async () => {
    const response = await requestToken({ headers: { ...FORM, Authorization: basic(client.clientId, client.secret) }, body: 'grant_type=password&username=a&password=b' });
    await expectOAuthError(response, 400, 'unsupported_grant_type');
  });

  it('answers an unknown client and a wrong secret alike: 401 invalid_client, with a Basic challenge when Basic was used', async () => {
    const unknown = await requestToken({ headers: { ...FORM, Authorization: basic('no-such-client', client.secret) }, body: 'grant_type=client_credentials' });
    const unknownBody = await expectOAuthError(unknown, 401, 'invalid_client');
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const wrong = await requestToken({ headers: { ...FORM, Authorization: basic(client.clientId, 'wrong-secret') }, body: 'grant_type=client_credentials' });
    expect(await expectOAuthError(wrong, 401, 'invalid_client')).toEqual(unknownBody);
    expect(wrong.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'));

    const inBody = await requestToken({ headers: FORM, body: `grant_type=client_credentials&client_id=${client.clientId}&client_secret=wrong` });
    expect(await expectOAuthError(inBody, 401, 'invalid_client')).toEqual(unknownBody);
    expect(inBody.headers.get('www-authenticate')).toBeNull();
  });

  it('refuses a disabled client with invalid_client, and takes it again once enabled', async () => {
    const other = await createClient(gateway.registry, client.tenant);
    await gateway.registry.setDisabled(other.clientId, true);
    const refused = await requestToken({ headers: { ...FORM, Authorization: basic(other.clientId, other.secret) }, body: 'grant_type=client_credentials' });
    await expectOAuthError(refused, 401, 'invalid_client');
    await gateway.registry.setDisabled(other.clientId, false);
    expect(await tokenFor(gateway, other.clientId, other.secret, freshIp())).toMatch(/^ey/);
  });

  it('hashes a secret stored at another cost again at the configured one, once it was presented right', async () => {
    const costlier = createClientRegistry(mongo.db(gateway.variables.MONGO_DB), { hashCost: 11 });
    const other = await costlier.createClient({ tenant: client.tenant });
    const storedHash = async () => (await mongo.db(gateway.variables.MONGO_DB).collection('clients').findOne({ _id: other.clientId as never }))?.secretHash as string;
    expect(hashCostOf(await storedHash())).toBe(11);
    expect(await tokenFor(gateway, other.clientId, other.secret, freshIp())).toMatch(/^ey/);
    expect(hashCostOf(await storedHash())).toBe(Number(gateway.variables.CLIENT_SECRET_HASH_COST));
    expect(await tokenFor(gateway, other.clientId, other.secret, freshIp())).toMatch(/^ey/);
  });

  it('takes only the new secret after a rotation', async () => {
    const other = await createClient(gateway.registry, client.tenant);
    const rotated = await gateway.registry.rotateSecret(other.clientId);
    const old = await requestToken({ headers: { ...FORM, Authorization: basic(other.clientId, other.secret) }, body: 'grant_type=client_credentials' });
    await expectOAuthError(old, 401, 'invalid_client');
    expect(await tokenFor(gateway, other.clientId, rotated, freshIp())).toMatch(/^ey/);
  });

  it('answers other methods on the token URL with 405 problem+json', async () => {
    const response = await gateway.fetch('/oauth2/token');
    expect(response.status).toBe(405);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
