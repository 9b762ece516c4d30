import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRefusalDelay } from '../src/limits/refusal-delay.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the refusal delay', () => {
  it('holds each refusal for its delay, and answers at once beyond the most it holds', async () => {
    vi.useFakeTimers();
    const refusals = createRefusalDelay({ delayMs: 1_000, most: 2 });
    const answered: number[] = [];
    const waits = [0, 1, 2].map((index) => refusals.wait().then(() => answered.push(index)));

    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toEqual([2]);
    await vi.advanceTimersByTimeAsync(999);
    expect(answered).toEqual([2]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(waits);
    expect(answered).toEqual([2, 0, 1]);

    // their places are free again
    const next = refusals.wait().then(() => answered.push(3));
    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1_000);
    await next;
    expect(answered).toEqual([2, 0, 1, 3]);
  });
});
