import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost as log2(N); 15 (N = 32768, r = 8, p = 1: 32 MiB, tens of milliseconds) by default. */
export const DEFAULT_SECRET_HASH_COST = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const HASH_FORMAT = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;
/** What a stored hash may ask for: beyond it (a corrupted record) it matches nothing rather than exhaust memory. */
const LIMITS = { cost: [1, 18], r: [1, 32], p: [1, 16] } as const;

/** A new client secret: 256 random bits, URL-safe, shown once and never stored. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`: the parameters travel with the hash, so the cost can change later. */
export async function hashClientSecret(secret: string, cost = DEFAULT_SECRET_HASH_COST): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt, { N: 2 ** cost, r: BLOCK_SIZE, p: PARALLELISM });
  return ['scrypt', cost, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** The cost (log2 N) a stored hash was made with; undefined for a malformed one. */
export function hashCostOf(stored: string): number | undefined {
  const cost = HASH_FORMAT.exec(stored)?.[1];
  return cost === undefined ? undefined : Number(cost);
}

/** Whether the secret matches the stored hash; compared in constant time. A malformed hash matches nothing. */
export async function verifyClientSecret(secret: string, stored: string): Promise<boolean> {
  const [, costText, rText, pText, salt, hash] = HASH_FORMAT.exec(stored) ?? [];
  const [cost, r, p] = [costText, rText, pText].map(Number) as [number, number, number];
  if (salt === undefined || hash === undefined || !within(cost, LIMITS.cost) || !within(r, LIMITS.r) || !within(p, LIMITS.p)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(secret, Buffer.from(salt, 'base64url'), { N: 2 ** cost, r, p });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function within(value: number, [min, max]: readonly [number, number]): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

function derive(secret: string, salt: Buffer, options: ScryptOptions & { N: number; r: number }): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is just too low for N = 2^15.
  const maxmem = 256 * options.N * options.r;
  return new Promise((resolve, reject) =>
    scrypt(secret.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) => (error === null ? resolve(key) : reject(error))),
  );
}
