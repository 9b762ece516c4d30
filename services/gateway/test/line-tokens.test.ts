import { UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { revocationDigest } from '@rm/service-kit';
import { createLineTokens } from '../src/import/line-tokens.js';

const AUTH = { tenant: 'acme', clientId: 'acme-tms' };
const LIMITS = { requestsPerSecond: 200, employees: 100_000, transportResources: 100_000, availabilities: 1_000_000 };

/** A token as the caller's would read (its signature is not what is looked at here), issued and expiring at these seconds. */
function callerToken(iat: number, exp: number): string {
  return new UnsecuredJWT({ tenant: AUTH.tenant, sub: AUTH.clientId }).setIssuedAt(iat).setExpirationTime(exp).encode();
}

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

const notRevoked = { isRevoked: () => false };
const now = () => Math.floor(Date.now() / 1000);

describe("an import's line tokens", () => {
  it("are the caller's while it is far from its expiry", async () => {
    const { keyRing, signed } = signer();
    const token = callerToken(now(), now() + 300);
    const tokens = createLineTokens({ callerToken: token, auth: AUTH, defaultLimits: LIMITS, keyRing, revocations: notRevoked });
    expect(await tokens.header()).toBe(`Bearer ${token}`);
    expect(signed).toEqual([]);
  });

  it('are one the gateway signs for the same client, tenant and limits once it nears its expiry, signed once for lines at once', async () => {
    const { keyRing, signed } = signer();
    const tokens = createLineTokens({ callerToken: callerToken(now() - 290, now() + 10), auth: { ...AUTH, limits: { employees: 5 } }, defaultLimits: LIMITS, keyRing, revocations: notRevoked });
    expect(await Promise.all([tokens.header(), tokens.header(), tokens.header()])).toEqual(['Bearer renewed-1', 'Bearer renewed-1', 'Bearer renewed-1']);
    expect(signed).toEqual([{ clientId: AUTH.clientId, tenant: AUTH.tenant, limits: { ...LIMITS, employees: 5 } }]);
  });

  it("are never renewed once the caller's client was revoked after its token was issued", async () => {
    const { keyRing, signed } = signer();
    const issuedAt = now() - 290;
    const token = callerToken(issuedAt, now() + 10);
    const revocations = {
      isRevoked: ({ clientDigest, issuedAt: at }: { clientDigest: string; issuedAt: number }) => clientDigest === revocationDigest(AUTH.clientId) && at <= issuedAt + 5,
    };
    const tokens = createLineTokens({ callerToken: token, auth: AUTH, defaultLimits: LIMITS, keyRing, revocations });
    expect(await tokens.header()).toBe(`Bearer ${token}`);
    expect(signed).toEqual([]);
  });
});
