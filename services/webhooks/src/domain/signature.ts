import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks (https://www.standardwebhooks.com): a secret is `whsec_` and base64 of 24 to 64
 * random bytes; a delivery is signed with HMAC-SHA256 under those bytes over `<id>.<timestamp>.<body>`,
 * sent as `webhook-signature: v1,<base64>`.
 */
const PREFIX = 'whsec_';

export function generateSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** The three headers of a delivery: its id (the same on every attempt), when it was signed, and the signature. */
export function signedHeaders(secret: string, webhookId: string, body: string, at: Date): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac('sha256', keyOf(secret)).update(`${webhookId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': webhookId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

/**
 * What a receiver checks: one of the space-separated `v1,` signatures is the body's, and the timestamp
 * is within `toleranceS` of now (a replayed delivery is refused). For our tests and for receivers in TypeScript.
 */
export function verifySignature(secret: string, headers: Record<string, string | undefined>, body: string, now = new Date(), toleranceS = 300): boolean {
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures } = headers;
  if (id === undefined || timestamp === undefined || signatures === undefined || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceS) return false;
  const expected = Buffer.from(createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64'));
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
