import { SignJWT, UnsecuredJWT } from 'jose';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { revocationDigest } from '@rm/service-kit';
import { callerToken, type CallerToken } from '../src/caller-token.js';
import { createLineTokens } from '../src/import/line-tokens.js';

const AUTH = { tenant: 'acme', clientId: 'acme-tms' };
const LIMITS = { requestsPerSecond: 200, employees: 100_000, transportResources: 100_000, availabilities: 1_000_000 };
const now = () => Math.floor(Date.now() / 1000);

function signer() {
  const signed: unknown[] = [];
  return {
    signed,
    keyRing: {
      async sign(claims: unknown) {
        signed.push(claims);
        return { token: `renewed-${signed.length}`, expiresIn: 300 };
      },
    },
  };
}

/** A caller's token expiring this many seconds from now. */
function caller(expiresInS: number, revoked = false): CallerToken {
  return { token: 'caller-token', expiresAt: (now() + expiresInS) * 1000, revoked: () => revoked };
}

describe("an import's line tokens", () => {
  it("are the caller's while it is far from its expiry", async () => {
    const { keyRing, signed } = signer();
    const tokens = createLineTokens({ caller: caller(300), auth: AUTH, defaultLimits: LIMITS, keyRing });
    expect(await tokens.header()).toBe('Bearer caller-token');
    expect(signed).toEqual([]);
  });

  it('are one the gateway signs for the same client, tenant and limits once it nears its expiry, signed once for lines at once', async () => {
    const { keyRing, signed } = signer();
    const tokens = createLineTokens({ caller: caller(10), auth: { ...AUTH, limits: { employees: 5 } }, defaultLimits: LIMITS, keyRing });
    expect(await Promise.all([tokens.header(), tokens.header(), tokens.header()])).toEqual(['Bearer renewed-1', 'Bearer renewed-1', 'Bearer renewed-1']);
    expect(signed).toEqual([{ clientId: AUTH.clientId, tenant: AUTH.tenant, limits: { ...LIMITS, employees: 5 } }]);
  });

  it("are never renewed once the caller's token is revoked", async () => {
    const { keyRing, signed } = signer();
    const tokens = createLineTokens({ caller: caller(10, true), auth: AUTH, defaultLimits: LIMITS, keyRing });
    expect(await tokens.header()).toBe('Bearer caller-token');
    expect(signed).toEqual([]);
  });
});

describe("a request's caller token", () => {
  it('is read as the verifier read it: its expiry, and revoked by its client, tenant or signing key after it was issued', async () => {
    const issuedAt = now() - 100;
    const token = await new SignJWT({ tenant: AUTH.tenant })
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
      .setSubject(AUTH.clientId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 300)
      .sign(new TextEncoder().encode('a-secret-of-at-least-32-characters!!'));
    const request = { headers: { authorization: `bearer  ${token} ` }, auth: AUTH } as unknown as FastifyRequest;
    const asked: unknown[] = [];
    const read = callerToken(request, { isRevoked: (check) => (asked.push(check), false) });
    expect(read.token).toBe(token);
    expect(read.expiresAt).toBe((issuedAt + 300) * 1000);
    expect(read.revoked()).toBe(false);
    expect(asked).toEqual([{ clientDigest: revocationDigest(AUTH.clientId), tenantDigest: revocationDigest(AUTH.tenant), issuedAt, kid: 'key-1' }]);
    expect(callerToken({ ...request, headers: { authorization: `Bearer ${new UnsecuredJWT({}).encode()}` } } as FastifyRequest, { isRevoked: () => true }).revoked()).toBe(true);
  });
});
