import { describe, expect, it } from 'vitest';
import { generateSecret, signedHeaders, verifySignature } from '../src/domain/signature.js';
import { isExpired, nextAttemptAt, DEFAULT_RETRY_POLICY } from '../src/domain/retry-schedule.js';

describe('Standard Webhooks signatures', () => {
  it("signs as the specification's own example does", () => {
    const headers = signedHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', '{"test": 2432232314}', new Date(1614265330_000));
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('verifies its own signatures, and refuses another body, another secret or an old timestamp', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const now = new Date();
    const headers = signedHeaders(secret, 'msg_1', '{"a":1}', now);
    expect(verifySignature(secret, headers, '{"a":1}', now)).toBe(true);
    expect(verifySignature(secret, { ...headers, 'webhook-signature': `v1,bogus ${headers['webhook-signature']}` }, '{"a":1}', now)).toBe(true);
    expect(verifySignature(secret, headers, '{"a":2}', now)).toBe(false);
    expect(verifySignature(generateSecret(), headers, '{"a":1}', now)).toBe(false);
    expect(verifySignature(secret, headers, '{"a":1}', new Date(now.getTime() + 301_000))).toBe(false);
  });
});

describe('the retry schedule', () => {
  it('waits four times longer after each failure, ±25 %, and stops a day after the delivery was made', () => {
    const first = new Date('2026-12-01T00:00:00Z');
    const delays = [1, 2, 3, 4].map((attempts) => nextAttemptAt(DEFAULT_RETRY_POLICY, first, attempts, first, 0.5)!.getTime() - first.getTime());
    expect(delays).toEqual([5_000, 20_000, 80_000, 320_000]);
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, first, 1, first, 0)!.getTime() - first.getTime()).toBe(3_750);
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, first, 1, first, 0.999_999)!.getTime() - first.getTime()).toBeCloseTo(6_250, -1);
    // capped at 6 h, and never past the day
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, first, 20, first, 0.5)!.getTime() - first.getTime()).toBe(6 * 3600_000);
    const late = new Date(first.getTime() + 22 * 3600_000);
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, first, 9, late, 0.5)!.toISOString()).toBe('2026-12-02T00:00:00.000Z');
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, first, 10, new Date(first.getTime() + 24 * 3600_000), 0.5)).toBeUndefined();
  });

  it('gives up untried a delivery that comes up after its day, but makes the last attempt planned at its very end', () => {
    const made = new Date('2026-12-01T00:00:00Z');
    const end = new Date('2026-12-02T00:00:00Z');
    const after = new Date(end.getTime() + 60_000);
    expect(isExpired(DEFAULT_RETRY_POLICY, made, made, new Date(made.getTime() + 23 * 3600_000))).toBe(false);
    expect(isExpired(DEFAULT_RETRY_POLICY, made, made, end)).toBe(true);
    expect(isExpired(DEFAULT_RETRY_POLICY, made, new Date(end.getTime() - 3600_000), after)).toBe(true);
    expect(isExpired(DEFAULT_RETRY_POLICY, made, end, after)).toBe(false);
  });
});
