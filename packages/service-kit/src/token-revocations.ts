import { createHash } from 'node:crypto';
import type { Logger } from './logger.js';

/**
 * The tokens revoked before they expire (`npm run clients -- revoke`), as the gateway serves them at
 * `GET /oauth2/revocations`: per client id and per tenant, by SHA-256 digest (the list names no one),
 * the second up to which their tokens were issued; and the signing keys (by `kid`, which the key set
 * shows anyway) none of whose tokens is good any more, whenever they say they were issued. An entry
 * matters only while tokens issued before it live, at most an hour.
 */
export interface RevocationList {
  clients: Record<string, number>;
  tenants: Record<string, number>;
  keys: Record<string, number>;
}

/** What a verifier asks of a token it has checked. */
export interface RevocationCheck {
  isRevoked(token: { clientDigest: string; tenantDigest: string; issuedAt: number; kid: string | undefined }): boolean;
}

export interface TokenRevocations extends RevocationCheck {
  stop(): void;
}

export const REVOCATIONS_PATH = '/oauth2/revocations';
const FETCH_TIMEOUT_MS = 5_000;

/** How a client id or a tenant appears in the list. */
export function revocationDigest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A check against the list `current` gives at the time of asking. */
export function revocationCheck(current: () => RevocationList): RevocationCheck {
  return {
    isRevoked({ clientDigest, tenantDigest, issuedAt, kid }) {
      const list = current();
      if (kid !== undefined && list.keys[kid] !== undefined) return true;
      return issuedAt <= (list.clients[clientDigest] ?? -Infinity) || issuedAt <= (list.tenants[tenantDigest] ?? -Infinity);
    },
  };
}

/**
 * The issuer's revocation list, fetched every `refreshMs`. While it cannot be fetched, the last one
 * stands (a warning says so): an unreachable gateway must not shut every service's API.
 */
export function pollTokenRevocations({ url, refreshMs, logger }: { url: string; refreshMs: number; logger: Logger }): TokenRevocations {
  let list: RevocationList = { clients: {}, tenants: {}, keys: {} };
  const refresh = async () => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      const fetched = revocationListOf(await response.json());
      if (fetched === undefined) throw new Error(`${url} answered something that is not a revocation list`);
      list = fetched;
    } catch (error) {
      logger.warn({ err: error }, 'the token revocation list could not be fetched; the last one stands');
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), refreshMs);
  timer.unref();
  return {
    ...revocationCheck(() => list),
    stop: () => clearInterval(timer),
  };
}

function revocationListOf(value: unknown): RevocationList | undefined {
  const { clients, tenants, keys = {} } = (value ?? {}) as Partial<RevocationList>;
  const valid = (entries: unknown) =>
    typeof entries === 'object' && entries !== null && Object.values(entries).every((second) => Number.isSafeInteger(second));
  return valid(clients) && valid(tenants) && valid(keys) ? { clients: clients!, tenants: tenants!, keys } : undefined;
}
