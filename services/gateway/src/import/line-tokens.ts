import type { AuthContext } from '@rm/service-kit';
import type { TenantLimits } from '@rm/contracts';
import type { CallerToken } from '../caller-token.js';
import type { KeyRing } from '../keys/key-ring.js';

/** A token is renewed this long before it expires: a line sent with it still reaches its owner in time. */
const RENEW_BEFORE_MS = 60_000;

export interface LineTokensOptions {
  /** The caller's bearer token, which the gateway verified. */
  caller: CallerToken;
  auth: AuthContext;
  /** The tenant's limits where the caller's token names none. */
  defaultLimits: TenantLimits;
  keyRing: Pick<KeyRing, 'sign'>;
}

/**
 * The bearer token each line of an import is sent with: the caller's, then, when it nears its expiry, one
 * the gateway signs for the same client, tenant and limits, so that an import longer than a token's
 * lifetime still applies its last lines. None is signed once the caller's token has been revoked (its
 * client, tenant or signing key revoked since it was issued): the lines after its expiry then answer 401.
 */
export function createLineTokens({ caller, auth, defaultLimits, keyRing }: LineTokensOptions) {
  let current = { token: caller.token, expiresAt: caller.expiresAt };
  let renewing: Promise<void> | undefined;

  async function renew(): Promise<void> {
    const { token, expiresIn } = await keyRing.sign({ clientId: auth.clientId, tenant: auth.tenant, limits: { ...defaultLimits, ...auth.limits } });
    current = { token, expiresAt: Date.now() + expiresIn * 1000 };
  }

  return {
    /** The `authorization` header of the next line. */
    async header(): Promise<string> {
      if (current.expiresAt - Date.now() < RENEW_BEFORE_MS && !caller.revoked()) {
        // a failed signing keeps the token there is: its lines answer 401 once it has expired
        renewing ??= renew()
          .catch(() => undefined)
          .finally(() => (renewing = undefined));
        await renewing;
      }
      return `Bearer ${current.token}`;
    },
  };
}
