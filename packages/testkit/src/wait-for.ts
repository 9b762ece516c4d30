import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until `check` returns something other than undefined/false; fails with `what` after the timeout. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined && result !== false) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
