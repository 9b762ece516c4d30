import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIssuer, type TestIssuer } from '@rm/testkit';
import { createTokenVerifier, InvalidTokenError, ServiceUnavailable } from '../src/index.js';
import { BASE_PATH, buildTestService, withTrailingBitSet, type TestService } from './helpers.js';

const CHALLENGE = 'Bearer realm="resource-management"';

describe('authentication', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await buildTestService(async (app) => {
      app.get('/whoami', async (request) => request.auth);
    });
  });
  afterAll(() => service.app.close());

  const ping = (authorization?: string) =>
    service.app.inject({ url: `${BASE_PATH}/ping`, headers: authorization === undefined ? {} : { authorization } });

  it('answers pong to a valid token and puts tenant and client on the request', async () => {
    const token = await service.issuer.mint({ tenant: 'tenant-a', clientId: 'planner' });
    const response = await ping(`Bearer ${token}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('pong');

    const whoami = await service.app.inject({ url: `${BASE_PATH}/whoami`, headers: { authorization: `bearer ${token}` } });
    expect(whoami.json()).toEqual({ tenant: 'tenant-a', clientId: 'planner' });
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer token', 'Bearer '],
  ])('answers 401 without an error attribute and without a body for %s', async (_case, authorization) => {
    const response = await ping(authorization);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(CHALLENGE);
    expect(response.body).toBe('');
  });

  it.each([
    ['an expired token', { tenant: 'tenant-a', expiresInSeconds: -120 }, 'the token has expired'],
    ['a token for another audience', { tenant: 'tenant-a', audience: 'someone-else' }, 'unexpected audience'],
    ['a token of another issuer', { tenant: 'tenant-a', issuer: 'https://evil.test/' }, 'unexpected issuer'],
    ['a token signed with a key not in the key set', { tenant: 'tenant-a', signWithUnknownKey: true }, 'invalid signature'],
    ['a token with an algorithm that is not allowed', { tenant: 'tenant-a', algorithm: 'HS256' }, 'signing algorithm not allowed'],
    ['an unsigned token', { tenant: 'tenant-a', algorithm: 'none' }, 'signing algorithm not allowed'],
    ['a token signed with RS256', { tenant: 'tenant-a', algorithm: 'RS256' }, 'signing algorithm not allowed'],
    ['a JWT that is not an access token', { tenant: 'tenant-a', type: 'JWT' }, 'the token is not an access token (typ at+jwt)'],
    ['a token without tenant', { tenant: null }, 'the token has no tenant claim'],
    // a tenant is a subject token and a part of document ids: no dots, wildcards, slashes or spaces
    ['a tenant with a dot', { tenant: 'acme.eu' }, 'the tenant claim is not a valid tenant id'],
    ['a tenant with a subject wildcard', { tenant: 'acme>' }, 'the tenant claim is not a valid tenant id'],
    ['a tenant with a slash', { tenant: 'acme/eu' }, 'the tenant claim is not a valid tenant id'],
    ['a tenant with a space', { tenant: 'acme eu' }, 'the tenant claim is not a valid tenant id'],
    ['a tenant that is not a string', { tenant: null, claims: { tenant: 42 } }, 'the token has no tenant claim'],
  ] as const)('answers 401 invalid_token for %s', async (_case, mint, description) => {
    const token = await service.issuer.mint(mint);
    const response = await ping(`Bearer ${token}`);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`${CHALLENGE}, error="invalid_token", error_description="${description}"`);
    expect(response.body).toBe('');
  });

  it('answers 401 invalid_token for an Authorization header longer than 4096 characters, before reading it', async () => {
    const token = await service.issuer.mint({ tenant: 'tenant-a' });
    const response = await ping(`Bearer ${token}${' '.repeat(4096)}`);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `${CHALLENGE}, error="invalid_token", error_description="the Authorization header is longer than 4096 characters"`,
    );
  });

  it('answers 401 invalid_token for a bearer value that is not a JWT', async () => {
    const response = await ping('Bearer not-a-jwt');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`${CHALLENGE}, error="invalid_token", error_description="malformed token"`);
  });

  it.each([
    ['padding after the signature', (token: string) => `${token}==`],
    ['a ! after the signature', (token: string) => `${token}!`],
    ['a space inside', (token: string) => `${token.slice(0, 20)} ${token.slice(20)}`],
    ['padding after the header', (token: string) => token.replace('.', '=.')],
    ['padding after the payload', (token: string) => token.replace(/\.([^.]*)$/, '=.$1')],
    ['a signature spelled with unused bits set', withTrailingBitSet],
    ['standard base64 characters in the signature', (token: string) => {
      const [header, payload, signature = ''] = token.split('.');
      return `${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64').replace(/=+$/, '')}`;
    }],
    ['four parts', (token: string) => `${token}.AAAA`],
  ])('answers 401 invalid_token "malformed token" for a token with %s', async (_case, respell) => {
    // A signature without - or _ reads the same in standard base64 (about one in 15): sign again.
    let token = await service.issuer.mint({ tenant: 'tenant-a' });
    while (respell(token) === token) token = await service.issuer.mint({ tenant: 'tenant-a' });
    const response = await ping(`Bearer ${respell(token)}`);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`${CHALLENGE}, error="invalid_token", error_description="malformed token"`);
    expect(response.body).toBe('');
  });

  it('leaves the health probes open', async () => {
    const response = await service.app.inject({ url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });
});

describe('createTokenVerifier with a remote key set', () => {
  let issuer: TestIssuer;
  let jwks: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    issuer = await createTestIssuer();
    jwks = await issuer.serveJwks();
  });
  afterAll(() => jwks.close());

  it('fetches the keys once and verifies tokens with them', async () => {
    const verify = createTokenVerifier({ jwksUrl: jwks.url, issuer: issuer.issuer, audience: issuer.audience });
    await expect(verify(await issuer.mint({ tenant: 't1', clientId: 'c1' }))).resolves.toEqual({ tenant: 't1', clientId: 'c1' });
    await expect(verify(await issuer.mint({ tenant: 't2' }))).resolves.toEqual({ tenant: 't2', clientId: 'test-client' });
    await expect(verify(await issuer.mint({ tenant: 't1', expiresInSeconds: -60 }))).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('reports an unreachable key set as unavailable, not as a bad token', async () => {
    const verify = createTokenVerifier({ jwksUrl: 'http://127.0.0.1:9/jwks.json', issuer: issuer.issuer, audience: issuer.audience });
    await expect(verify(await issuer.mint({ tenant: 't1' }))).rejects.toBeInstanceOf(ServiceUnavailable);
  });
});

describe('createTokenVerifier remembering verified tokens', () => {
  it('answers a verified token again without its key set, but never beyond its expiry, and never remembers a refusal', async () => {
    const issuer = await createTestIssuer();
    const jwks = await issuer.serveJwks();
    const verify = createTokenVerifier({ jwksUrl: jwks.url, issuer: issuer.issuer, audience: issuer.audience, clockToleranceSeconds: 0 });
    const token = await issuer.mint({ tenant: 't1', expiresInSeconds: 2 });
    await expect(verify(token)).resolves.toEqual({ tenant: 't1', clientId: 'test-client' });
    // The key set is gone: only the remembered verification can answer.
    await jwks.close();
    await expect(verify(token)).resolves.toEqual({ tenant: 't1', clientId: 'test-client' });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await expect(verify(token)).rejects.toBeInstanceOf(InvalidTokenError);

    const offline = createTokenVerifier({ jwks: issuer.jwks, issuer: issuer.issuer, audience: 'someone-else' });
    const refused = await issuer.mint({ tenant: 't1' });
    await expect(offline(refused)).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(offline(refused)).rejects.toBeInstanceOf(InvalidTokenError);
  });
});
