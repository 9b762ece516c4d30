import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIssuer, waitFor, type TestIssuer } from '@rm/testkit';
import { createTokenVerifier, InvalidTokenError } from '../src/auth.js';
import { createLogger } from '../src/logger.js';
import { pollTokenRevocations, revocationCheck, revocationDigest, type RevocationList } from '../src/token-revocations.js';

const logger = createLogger({ level: 'silent', name: 'revocations-test' });
const none = (): RevocationList => ({ clients: {}, tenants: {}, keys: {} });

describe('a verifier with revocations', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await createTestIssuer();
  });

  it("refuses a client's or a tenant's token issued up to the revoked second, also once remembered, and none issued after", async () => {
    let list = none();
    const verify = createTokenVerifier({ jwks: issuer.jwks, issuer: issuer.issuer, audience: issuer.audience, revocations: revocationCheck(() => list) });
    const token = await issuer.mint({ tenant: 't1', clientId: 'c1' });
    const sibling = await issuer.mint({ tenant: 't1', clientId: 'c2' });
    // after the mints: a second that turned between them and a `now` taken before would leave them issued after it
    const now = Math.floor(Date.now() / 1000);
    await expect(verify(token)).resolves.toMatchObject({ clientId: 'c1' });

    list = { ...none(), clients: { [revocationDigest('c1')]: now } };
    await expect(verify(token)).rejects.toThrow(new InvalidTokenError('the token has been revoked'));
    await expect(verify(sibling)).resolves.toMatchObject({ clientId: 'c2' });

    list = { ...none(), tenants: { [revocationDigest('t1')]: now } };
    await expect(verify(sibling)).rejects.toThrow('the token has been revoked');
    await expect(verify(await issuer.mint({ tenant: 't2', clientId: 'c3' }))).resolves.toMatchObject({ tenant: 't2' });

    list = { ...none(), tenants: { [revocationDigest('t1')]: now - 1 } };
    await expect(verify(await issuer.mint({ tenant: 't1', clientId: 'c4' }))).resolves.toMatchObject({ clientId: 'c4' });
  });

  it("refuses every token of a revoked signing key, whenever it says it was issued", async () => {
    let list = none();
    const verify = createTokenVerifier({ jwks: issuer.jwks, issuer: issuer.issuer, audience: issuer.audience, revocations: revocationCheck(() => list) });
    const token = await issuer.mint({ tenant: 't1', clientId: 'c1' });
    await expect(verify(token)).resolves.toMatchObject({ clientId: 'c1' });
    const kid = issuer.jwks.keys[0]!.kid!;
    list = { ...none(), keys: { [kid]: Math.floor(Date.now() / 1000) - 3_600 } };
    await expect(verify(token)).rejects.toThrow('the token has been revoked');
    await expect(verify(await issuer.mint({ tenant: 't2', clientId: 'c9' }))).rejects.toThrow('the token has been revoked');
  });
});

describe('the revocation list fetched from the issuer', () => {
  let server: Server;
  let served: { status: number; body: string };
  let url: string;

  beforeAll(async () => {
    server = createServer((_request, response) => response.writeHead(served.status, { 'content-type': 'application/json' }).end(served.body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/revocations`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('follows the list, and keeps the last one while the issuer fails or answers something else', async () => {
    const digest = revocationDigest('c1');
    served = { status: 200, body: JSON.stringify({ clients: { [digest]: 100 }, tenants: {} }) };
    const revocations = pollTokenRevocations({ url, refreshMs: 100, logger });
    try {
      const token = { clientDigest: digest, tenantDigest: revocationDigest('t1'), issuedAt: 100, kid: 'k1' };
      await waitFor('the list to be fetched', async () => revocations.isRevoked(token));

      served = { status: 503, body: '{}' };
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(revocations.isRevoked(token)).toBe(true);
      served = { status: 200, body: JSON.stringify({ clients: { [digest]: 'soon' }, tenants: {} }) };
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(revocations.isRevoked(token)).toBe(true);

      served = { status: 200, body: JSON.stringify(none()) };
      await waitFor('the revocation to be gone from the list', async () => !revocations.isRevoked(token));
    } finally {
      revocations.stop();
    }
  });
});
