import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../src/retries.js';

const answer = (retryAfter?: string) => new Response(null, { status: 503, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter } });

describe('Retry-After', () => {
  it('is read as seconds, or as an HTTP date from now', () => {
    expect(retryAfterMs(answer('1'))).toBe(1000);
    expect(retryAfterMs(answer(' 120 '))).toBe(120_000);
    const inTenSeconds = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10_000).toUTCString();
    expect(retryAfterMs(answer(inTenSeconds))).toBeGreaterThan(8_000);
    expect(retryAfterMs(answer('Thu, 01 Jan 1970 00:00:00 GMT'))).toBe(0);
  });

  it('is nothing when it is neither, so the client backs off by itself', () => {
    for (const value of [undefined, '', '1.5', '-1', 'soon', '2026-12-07T06:00:00Z']) expect(retryAfterMs(answer(value)), value).toBeUndefined();
  });
});
