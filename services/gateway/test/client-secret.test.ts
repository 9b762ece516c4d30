import { describe, expect, it } from 'vitest';
import { DEFAULT_SECRET_HASH_COST, generateClientSecret, hashClientSecret, verifyClientSecret } from '../src/domain/client-secret.js';

/** Low scrypt cost (N = 2^10) so the tests stay fast; the parameters travel with the hash. */
const COST = 10;
const HASH = /^scrypt\$(\d+)\$8\$1\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function parts(stored: string) {
  const match = HASH.exec(stored);
  if (match === null) throw new Error(`not a hash in the expected format: ${stored}`);
  return { cost: Number(match[1]), salt: match[2]!, hash: match[3]! };
}

/** The same stored hash with one base64url character of `field` changed. */
function tamper(stored: string, field: 'salt' | 'hash'): string {
  const { cost, salt, hash } = parts(stored);
  const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
  return ['scrypt', cost, 8, 1, field === 'salt' ? flip(salt) : salt, field === 'hash' ? flip(hash) : hash].join('$');
}

describe('generateClientSecret', () => {
  it('is 43 base64url characters: 256 random bits without padding', () => {
    for (let index = 0; index < 20; index += 1) {
      const secret = generateClientSecret();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
      expect(Buffer.from(secret, 'base64url').toString('base64url')).toBe(secret);
    }
  });

  it('differs every time', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => generateClientSecret()));
    expect(secrets.size).toBe(200);
  });
});

describe('hashClientSecret', () => {
  it('has the format scrypt$<cost>$8$1$<salt>$<hash> with a 16-byte salt and a 32-byte hash', async () => {
    const stored = await hashClientSecret('s3cret', COST);
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    const { salt, hash } = parts(stored);
    expect(Buffer.from(salt, 'base64url')).toHaveLength(16);
    expect(Buffer.from(hash, 'base64url')).toHaveLength(32);
  });

  it('does not contain the secret', async () => {
    const secret = generateClientSecret();
    expect(await hashClientSecret(secret, COST)).not.toContain(secret);
  });

  it('uses cost 15 by default', async () => {
    expect(DEFAULT_SECRET_HASH_COST).toBe(15);
    const stored = await hashClientSecret('s3cret');
    expect(parts(stored).cost).toBe(15);
    expect(await verifyClientSecret('s3cret', stored)).toBe(true);
    expect(await verifyClientSecret('s3creT', stored)).toBe(false);
  });

  it('salts every hash: two hashes of the same secret differ, and both verify', async () => {
    const [first, second] = await Promise.all([hashClientSecret('same secret', COST), hashClientSecret('same secret', COST)]);
    expect(first).not.toBe(second);
    expect(parts(first).salt).not.toBe(parts(second).salt);
    expect(parts(first).hash).not.toBe(parts(second).hash);
    expect(await verifyClientSecret('same secret', first)).toBe(true);
    expect(await verifyClientSecret('same secret', second)).toBe(true);
  });
});

describe('verifyClientSecret', () => {
  it('accepts the right secret and refuses a wrong one', async () => {
    const secret = generateClientSecret();
    const stored = await hashClientSecret(secret, COST);
    expect(await verifyClientSecret(secret, stored)).toBe(true);
    expect(await verifyClientSecret(generateClientSecret(), stored)).toBe(false);
    expect(await verifyClientSecret(secret.slice(0, -1), stored)).toBe(false);
    expect(await verifyClientSecret(`${secret} `, stored)).toBe(false);
    expect(await verifyClientSecret(secret.toUpperCase(), stored)).toBe(false);
    expect(await verifyClientSecret('', stored)).toBe(false);
  });

  it('verifies with the cost stored in the hash, so the cost can change later', async () => {
    const cheap = await hashClientSecret('s3cret', 4);
    expect(parts(cheap).cost).toBe(4);
    expect(await verifyClientSecret('s3cret', cheap)).toBe(true);
    // the same salt and hash claimed under another cost do not match
    expect(await verifyClientSecret('s3cret', cheap.replace(/^scrypt\$4\$/, 'scrypt$5$'))).toBe(false);
  });

  it('refuses a stored hash whose salt or hash was changed', async () => {
    const stored = await hashClientSecret('s3cret', COST);
    expect(await verifyClientSecret('s3cret', tamper(stored, 'salt'))).toBe(false);
    expect(await verifyClientSecret('s3cret', tamper(stored, 'hash'))).toBe(false);
  });

  it('refuses a stored hash of another length without throwing', async () => {
    const stored = await hashClientSecret('s3cret', COST);
    const { salt, hash } = parts(stored);
    await expect(verifyClientSecret('s3cret', `scrypt$10$8$1$${salt}$${hash.slice(0, 20)}`)).resolves.toBe(false);
    await expect(verifyClientSecret('s3cret', `scrypt$10$8$1$${salt}$${hash}AAAA`)).resolves.toBe(false);
  });

  it('refuses malformed stored hashes without throwing', async () => {
    const stored = await hashClientSecret('s3cret', COST);
    const { salt, hash } = parts(stored);
    for (const malformed of [
      '',
      's3cret',
      'scrypt',
      'scrypt$$$$$',
      `scrypt$10$8$1$${salt}`,
      `scrypt$10$8$1$${salt}$`,
      `scrypt$10$8$1$$${hash}`,
      `scrypt$10$8$${salt}$${hash}`,
      `scrypt$10$8$1$${salt}$${hash}$extra`,
      `bcrypt$10$8$1$${salt}$${hash}`,
      `SCRYPT$10$8$1$${salt}$${hash}`,
      `scrypt$ten$8$1$${salt}$${hash}`,
      `scrypt$100$8$1$${salt}$${hash}`,
      `scrypt$10$8$1$${salt}==$${hash}`,
      `scrypt$10$8$1$${salt}$${hash}=`,
      `scrypt$10$8$1$${Buffer.from(salt, 'base64url').toString('base64')}+/$${hash}`,
      ` ${stored}`,
      `${stored}\n`,
    ]) {
      await expect(verifyClientSecret('s3cret', malformed), malformed).resolves.toBe(false);
    }
  });

  // A malformed hash matches nothing (the module's own contract): these parameters are out of scrypt's range.
  it.each([
    ['0', '8', '1', 'N = 2^0 = 1: scrypt needs N > 1'],
    ['33', '8', '1', 'N = 2^33: above what scrypt accepts'],
    ['99', '8', '1', 'N = 2^99'],
    ['10', '0', '1', 'r = 0'],
    ['10', '8', '0', 'p = 0'],
  ])('refuses a stored hash with cost %s, r %s, p %s (%s) without throwing', async (cost, r, p) => {
    const { salt, hash } = parts(await hashClientSecret('s3cret', COST));
    await expect(verifyClientSecret('s3cret', ['scrypt', cost, r, p, salt, hash].join('$'))).resolves.toBe(false);
  });

  it('normalizes Unicode: the NFC and NFD forms of a secret verify the same', async () => {
    const nfc = 'caf\u00e9-s3cret';
    const nfd = 'cafe\u0301-s3cret';
    expect(nfc).not.toBe(nfd);
    expect(nfc.normalize('NFC')).toBe(nfd.normalize('NFC'));
    const fromNfc = await hashClientSecret(nfc, COST);
    const fromNfd = await hashClientSecret(nfd, COST);
    expect(await verifyClientSecret(nfd, fromNfc)).toBe(true);
    expect(await verifyClientSecret(nfc, fromNfd)).toBe(true);
    expect(await verifyClientSecret(nfc, fromNfc)).toBe(true);
    // normalization does not fold distinct characters together
    expect(await verifyClientSecret('cafe-s3cret', fromNfc)).toBe(false);
    expect(await verifyClientSecret('CAF\u00c9-s3cret', fromNfc)).toBe(false);
  });

  it('handles non-ASCII and long secrets', async () => {
    for (const secret of ['пароль 🔑 密码', 'x'.repeat(10_000)]) {
      const stored = await hashClientSecret(secret, COST);
      expect(await verifyClientSecret(secret, stored)).toBe(true);
      expect(await verifyClientSecret(secret.slice(0, -1), stored)).toBe(false);
    }
  });
});
