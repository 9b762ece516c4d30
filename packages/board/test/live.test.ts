import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient, ChangesOptions } from '@rm/client';
import { followChanges } from '../src/live.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client whose feed opens after a while and then sends a change every 100 ms, without end. */
function steadyFeed(opensAfterMs: number): ApiClient {
  return {
    async *changes(options: ChangesOptions = {}) {
      await pause(opensAfterMs);
      options.onConnection?.(true);
      while (options.signal?.aborted !== true) {
        yield { position: '0', event: {} };
        await pause(100);
      }
    },
  } as unknown as ApiClient;
}

// on a clock of the test's: a busy machine's stall would otherwise count as a quiet moment
describe("the board's live reload", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('says it is live only once the feed is open', async () => {
    const statuses: boolean[] = [];
    const stop = followChanges(steadyFeed(200), () => undefined, (live) => statuses.push(live));
    await vi.advanceTimersByTimeAsync(100);
    expect(statuses).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(statuses).toEqual([true]);
    stop();
  });

  it('reloads during a steady stream of changes that never quiets down, every two seconds', async () => {
    let reloads = 0;
    const stop = followChanges(steadyFeed(0), () => reloads++, () => undefined);
    await vi.advanceTimersByTimeAsync(2_400);
    expect(reloads).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    stop();
    expect(reloads).toBe(2);
  });
});
