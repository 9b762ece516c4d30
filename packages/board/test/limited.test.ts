import { describe, expect, it } from 'vitest';
import { mapLimited } from '../src/limited.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('work on many items, a few at a time', () => {
  it('runs at most the limit at once and answers in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const answers = await mapLimited(Array.from({ length: 40 }, (_, index) => index), 6, async (item) => {
      most = Math.max(most, ++running);
      await tick();
      running--;
      return item * 2;
    });
    expect(most).toBe(6);
    expect(answers).toEqual(Array.from({ length: 40 }, (_, index) => index * 2));
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const work = mapLimited(Array.from({ length: 40 }, (_, index) => index), 6, async (item) => {
      started.push(item);
      await tick();
      if (item === 2) throw new Error('refused');
      return item;
    });
    await expect(work).rejects.toThrow('refused');
    await tick();
    expect(started.length).toBeLessThan(12);
  });
});
