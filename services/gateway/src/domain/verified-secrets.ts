import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets this replica has verified with scrypt lately, remembered as a keyed digest (the key
 * never leaves the process) beside the stored hash they matched: the same secret presented again is
 * recognised without another scrypt hash (135 ms and 32 MiB each), so a client that asks for tokens
 * often costs almost nothing. A rotated secret (its stored hash changed) or a disabled client is not
 * recognised: the caller reads the client each time. A wrong secret is never recognised and goes to
 * scrypt, as an unknown client's does, so that the two still take the same time.
 */
export interface VerifiedSecrets {
  remember(clientId: string, storedHash: string, secret: string): void;
  recognises(clientId: string, storedHash: string, secret: string): boolean;
}

/** Long enough to spare every renewal of a token (at most an hour); a forgotten secret costs one hash. */
const REMEMBERED_MS = 15 * 60_000;
const REMEMBERED_CLIENTS = 10_000;

export function createVerifiedSecrets({ now = Date.now }: { now?: () => number } = {}): VerifiedSecrets {
  const key = randomBytes(32);
  const digest = (secret: string) => createHmac('sha256', key).update(secret.normalize('NFC')).digest();
  const remembered = new Map<string, { storedHash: string; digest: Buffer; until: number }>();
  return {
    remember(clientId, storedHash, secret) {
      remembered.delete(clientId);
      remembered.set(clientId, { storedHash, digest: digest(secret), until: now() + REMEMBERED_MS });
      if (remembered.size > REMEMBERED_CLIENTS) remembered.delete(remembered.keys().next().value as string);
    },
    recognises(clientId, storedHash, secret) {
      const entry = remembered.get(clientId);
      if (entry === undefined || entry.storedHash !== storedHash || entry.until <= now()) return false;
      return timingSafeEqual(entry.digest, digest(secret));
    },
  };
}
