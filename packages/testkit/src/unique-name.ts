import { randomBytes } from 'node:crypto';

const MAX_LENGTH = 38;
const SUFFIX_LENGTH = 12;

/**
 * `${prefix}_${random}`, usable as a MongoDB database name and as a NATS stream or consumer name:
 * letters, digits and underscores only, at most 38 characters. Other characters in the prefix
 * become underscores; a long prefix is cut.
 */
export function uniqueName(prefix: string): string {
  const safePrefix = prefix.replace(/[^A-Za-z0-9_]/g, '_').slice(0, MAX_LENGTH - SUFFIX_LENGTH - 1);
  const suffix = randomBytes(SUFFIX_LENGTH / 2).toString('hex');
  return safePrefix === '' ? `t_${suffix}` : `${safePrefix}_${suffix}`;
}
