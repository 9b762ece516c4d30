const ARRIVAL_TIMEOUT_MS = 600_000;

/**
 * When a consumer's handler received each event (by a key of the caller's), and a wait for one that has
 * not come yet, which fails after `timeoutMs` (a lost event is a result too).
 */
export function createArrivals(timeoutMs = ARRIVAL_TIMEOUT_MS) {
  const times = new Map<string, bigint>();
  const waiting = new Map<string, () => void>();
  return {
    record(key: string): void {
      times.set(key, process.hrtime.bigint());
      waiting.get(key)?.();
    },
    async wait(key: string): Promise<bigint> {
      const known = times.get(key);
      if (known !== undefined) return known;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no event for ${key} within ${timeoutMs} ms`)), timeoutMs);
        waiting.set(key, () => {
          clearTimeout(timer);
          waiting.delete(key);
          resolve();
        });
      });
      return times.get(key) as bigint;
    },
  };
}
