import { describe, expect, it } from 'vitest';
import { waitFor } from '@rm/testkit';
import { createTenantPools } from '../src/delivery/tenant-pools.js';

function recordingPools(options: { maxPools: number; idleMs: number }) {
  const opened: { closed: boolean; close(): Promise<void> }[] = [];
  const pools = createTenantPools(() => {
    const pool = {
      closed: false,
      close: async () => {
        pool.closed = true;
      },
    };
    opened.push(pool);
    return pool;
  }, options);
  return { pools, opened };
}

describe("tenants' connection pools", () => {
  it('gives each tenant a pool of its own, and closes the one idle longest to open one too many, never one in use', async () => {
    const { pools, opened } = recordingPools({ maxPools: 2, idleMs: 60_000 });
    const a = await pools.use('a', async (pool) => pool);
    expect(await pools.use('a', async (pool) => pool)).toBe(a);
    let release = () => {};
    const held = pools.use('b', (pool) => new Promise<typeof pool>((resolve) => (release = () => resolve(pool))));
    const c = await pools.use('c', async (pool) => pool);
    expect(c).not.toBe(a);
    expect(a.closed).toBe(true);

    // b is in use: c goes, though b was opened first
    await pools.use('d', async (pool) => pool);
    expect(c.closed).toBe(true);
    release();
    const b = await held;
    expect(b.closed).toBe(false);
    expect(opened).toHaveLength(4);

    await pools.close();
    expect(opened.every(({ closed }) => closed)).toBe(true);
  });

  it('closes a pool once it was idle for a while, and opens another when its tenant comes back', async () => {
    const { pools } = recordingPools({ maxPools: 10, idleMs: 20 });
    try {
      const first = await pools.use('a', async (pool) => pool);
      await waitFor('the idle pool closed', async () => first.closed);
      const again = await pools.use('a', async (pool) => pool);
      expect(again).not.toBe(first);
    } finally {
      await pools.close();
    }
  });
});
