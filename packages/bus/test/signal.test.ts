import { describe, expect, it } from 'vitest';
import { createSignal, pause } from '../src/signal.js';

describe('signal', () => {
  it('wakes every waiter and once-listener at the next notify, and only then', async () => {
    const signal = createSignal();
    const woken: string[] = [];
    const waiting = signal.wait().then(() => woken.push('wait'));
    signal.once(() => woken.push('once'));
    expect(signal.waiting).toBe(2);
    signal.notify();
    await waiting;
    expect(woken).toEqual(['once', 'wait']);
    expect(signal.waiting).toBe(0);
  });

  // Reproduced before the fix: every pause that ran out left its listener behind until the next
  // notify, which a runner's stop signal only gets once; idle runners grew without bound.
  it('leaves nothing behind when a pause runs out, and cuts a pause short when notified', async () => {
    const signal = createSignal();
    for (let index = 0; index < 100; index += 1) await pause(0, signal);
    expect(signal.waiting).toBe(0);

    const started = Date.now();
    const long = pause(60_000, signal);
    signal.notify();
    await long;
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
