import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK, type JWTVerifyGetKey } from 'jose';
import type { TenantLimits } from '@rm/contracts';
import { ACCESS_TOKEN_TYPE, type Logger } from '@rm/service-kit';
import { isPublished, keyDue, signingKey, type KeySchedulePolicy } from '../domain/key-schedule.js';
import type { SigningKeyStore, StoredSigningKey } from '../store/signing-key-store.js';

export const SIGNING_ALGORITHM = 'ES256';

export interface AccessTokenClaims {
  /** The client id (`sub`, and `client_id` as RFC 9068 names it). */
  clientId: string;
  tenant: string;
  /** The tenant's limits in force (`limits`), which the gateway and every service enforce. */
  limits: TenantLimits;
}

export interface KeyRing {
  /** Loads the keys, creating the first or the next when due; call before serving. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Fails while no key can sign (for /readyz). */
  readiness(): Promise<void>;
  /** The public keys verifiers may meet: `/.well-known/jwks.json`. */
  jwks(): { keys: JWK[] };
  /** Verifies against the published keys as they are now. */
  getKey: JWTVerifyGetKey;
  /** A signed access token and its lifetime in seconds. */
  sign(claims: AccessTokenClaims): Promise<{ token: string; expiresIn: number }>;
}

export interface KeyRingOptions {
  store: SigningKeyStore;
  policy: Omit<KeySchedulePolicy, 'retentionMs'>;
  issuer: string;
  audience: string;
  tokenLifetimeSeconds: number;
  /** Kept beyond a retired key's last token's expiry: verifiers' clock tolerance, replicas' clock skew. */
  retentionMarginMs: number;
  refreshMs: number;
  logger: Logger;
}

interface LoadedKey extends StoredSigningKey {
  privateKey: CryptoKey;
}

/**
 * The gateway's signing keys, shared by every replica through the database: each replica reloads
 * them every `refreshMs`, plans the next key when it is due (one replica's insert wins), and
 * removes those whose tokens have all expired.
 */
export function createKeyRing({ store, policy, issuer, audience, tokenLifetimeSeconds, retentionMarginMs, refreshMs, logger }: KeyRingOptions): KeyRing {
  const schedule: KeySchedulePolicy = { ...policy, retentionMs: tokenLifetimeSeconds * 1000 + retentionMarginMs };
  let keys: LoadedKey[] = [];
  let published: JWK[] = [];
  let verifyingKeys = createLocalJWKSet({ keys: [] });
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    let stored = await store.all();
    const due = keyDue(stored, Date.now(), schedule);
    if (due !== undefined) {
      const created = await store.add({ ...(await generateKey()), link: due.link, activeFrom: due.activeFrom });
      if (created) logger.info({ activeFrom: new Date(due.activeFrom).toISOString() }, 'signing key planned');
      stored = await store.all();
    }
    const now = Date.now();
    const expired = stored.filter((key) => !isPublished(key, stored, now, schedule));
    await store.remove(expired.map((key) => key.kid));
    const kept = stored.filter((key) => !expired.includes(key));
    keys = await Promise.all(kept.map(async (key) => keys.find((loaded) => loaded.kid === key.kid) ?? load(key)));
    published = keys.map((key) => key.publicJwk);
    verifyingKeys = createLocalJWKSet({ keys: published });
  }

  function scheduleRefresh(): void {
    timer = setTimeout(() => {
      refreshing = refresh()
        .catch((error: unknown) => logger.warn({ err: error }, 'reloading the signing keys failed; keeping the ones loaded'))
        .finally(() => {
          refreshing = undefined;
          if (timer !== undefined) scheduleRefresh();
        });
    }, refreshMs);
  }

  return {
    async start() {
      await refresh();
      scheduleRefresh();
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      // a reload under way finishes before the database closes
      await refreshing;
    },
    async readiness() {
      if (signingKey(keys, Date.now()) === undefined) throw new Error('no signing key is loaded');
    },
    jwks: () => ({ keys: published }),
    getKey: (header, token) => verifyingKeys(header, token),
    async sign({ clientId, tenant, limits }) {
      const key = signingKey(keys, Date.now());
      if (key === undefined) throw new Error('no signing key is active: the key ring has not loaded');
      const token = await new SignJWT({ tenant, client_id: clientId, limits })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_TYPE })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(clientId)
        .setIssuedAt()
        .setExpirationTime(`${tokenLifetimeSeconds}s`)
        .setJti(randomUUID())
        .sign(key.privateKey);
      return { token, expiresIn: tokenLifetimeSeconds };
    },
  };
}

async function generateKey(): Promise<Omit<StoredSigningKey, 'link' | 'activeFrom'>> {
  const kid = randomUUID();
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  return {
    kid,
    alg: SIGNING_ALGORITHM,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALGORITHM, use: 'sig' },
    privateJwk: await exportJWK(privateKey),
  };
}

async function load(key: StoredSigningKey): Promise<LoadedKey> {
  return { ...key, privateKey: (await importJWK(key.privateJwk, key.alg)) as CryptoKey };
}
