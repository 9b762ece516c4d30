import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestIssuer, type TestIssuer } from '../src/index.js';

describe('createTestIssuer', () => {
  let issuer: TestIssuer;
  let verify: (token: string) => ReturnType<typeof jwtVerify>;
  beforeAll(async () => {
    issuer = await createTestIssuer({ issuer: 'https://auth.example.test/', audience: 'rm-api' });
    const keys = createLocalJWKSet(issuer.jwks);
    verify = (token) =>
      jwtVerify(token, keys, { issuer: issuer.issuer, audience: issuer.audience, algorithms: ['ES256'] });
  });

  test('mints ES256 tokens with a kid that verify against its JWKS', async () => {
    const token = await issuer.mint({ tenant: 'tenant-a', clientId: 'planner' });
    const { payload, protectedHeader } = await verify(token);
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: issuer.jwks.keys[0]?.kid });
    expect(payload).toMatchObject({ iss: 'https://auth.example.test/', aud: 'rm-api', sub: 'planner', tenant: 'tenant-a' });
    expect(payload.exp! - payload.iat!).toBe(300);
  });

  test('publishes public keys only', () => {
    expect(issuer.jwks.keys).toHaveLength(1);
    expect(issuer.jwks.keys[0]).not.toHaveProperty('d');
  });

  test('defaults the client id and can leave the tenant out', async () => {
    const { payload } = await verify(await issuer.mint({ tenant: null }));
    expect(payload.sub).toBe('test-client');
    expect(payload).not.toHaveProperty('tenant');
  });

  test('tokens signed with an unknown key, another algorithm or none are rejected', async () => {
    const unknownKey = await issuer.mint({ tenant: 'tenant-a', signWithUnknownKey: true });
    expect(decodeProtectedHeader(unknownKey).kid).toBe(issuer.jwks.keys[0]?.kid);
    await expect(verify(unknownKey)).rejects.toThrow();
    await expect(verify(await issuer.mint({ tenant: 'tenant-a', algorithm: 'HS256' }))).rejects.toThrow();
    await expect(verify(await issuer.mint({ tenant: 'tenant-a', algorithm: 'none' }))).rejects.toThrow();
  });

  test('expired tokens, tokens not yet valid and tokens for another issuer or audience are rejected', async () => {
    await expect(verify(await issuer.mint({ tenant: 't', expiresInSeconds: -60 }))).rejects.toThrow(/exp/);
    await expect(verify(await issuer.mint({ tenant: 't', notBefore: '10m' }))).rejects.toThrow(/nbf/);
    await expect(verify(await issuer.mint({ tenant: 't', issuer: 'https://other.test/' }))).rejects.toThrow(/iss/);
    await expect(verify(await issuer.mint({ tenant: 't', audience: 'other' }))).rejects.toThrow(/aud/);
  });

  describe('serveJwks', () => {
    let served: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      served = await issuer.serveJwks();
    });
    afterAll(async () => {
      await served?.close();
    });

    test('serves the key set over HTTP for remote verification', async () => {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json$/);
      const token = await issuer.mint({ tenant: 'tenant-b' });
      const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(served.url)), {
        issuer: issuer.issuer,
        audience: issuer.audience,
      });
      expect(payload.tenant).toBe('tenant-b');
    });
  });
});
