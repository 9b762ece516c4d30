import { describe, expect, it } from 'vitest';
import { createHashSlots, TokenEndpointBusy } from '../src/token-protection/hash-slots.js';

/** A hash that ends when the test says. */
function heldHash() {
  let end = () => {};
  let fail = (_error: Error) => {};
  const done = new Promise<string>((resolve, reject) => {
    end = () => resolve('hashed');
    fail = reject;
  });
  return { hash: () => done, end, fail };
}

describe('the hash slots of the token endpoint', () => {
  it('runs at most `concurrent` hashes, queues `queued` more in order, and refuses the next at once', async () => {
    const slots = createHashSlots({ concurrent: 2, queued: 1 });
    const hashes = [heldHash(), heldHash(), heldHash()];
    const started: number[] = [];
    const runs = hashes.map((held, index) =>
      slots.run(() => {
        started.push(index);
        return held.hash();
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    await expect(slots.run(async () => 'never')).rejects.toBeInstanceOf(TokenEndpointBusy);

    // a failed hash frees its slot as well
    hashes[0]?.fail(new Error('scrypt failed'));
    await expect(runs[0]).rejects.toThrow('scrypt failed');
    expect(started).toEqual([0, 1, 2]);
    hashes[1]?.end();
    hashes[2]?.end();
    expect(await Promise.all(runs.slice(1))).toEqual(['hashed', 'hashed']);
    // all free again
    expect(await slots.run(async () => 'again')).toBe('again');
  });
});
