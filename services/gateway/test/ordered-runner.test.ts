import { describe, expect, it } from 'vitest';
import { createOrderedRunner } from '../src/import/ordered-runner.js';

/** A task the test finishes by hand. */
function task(value: string): { run: () => Promise<string>; finish(): void } {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => (finish = () => resolve(value)));
  return { run: () => done, finish };
}

/** Whether a promise has settled once everything already queued has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const failed = () => 'failed';

describe("an import's ordered runner", () => {
  it('holds no more than its byte window of tasks not yet done, and lets a done task go though its result waits for an earlier one', async () => {
    const emitted: string[] = [];
    const runner = createOrderedRunner<string>({ concurrency: 16, window: 100, windowBytes: 10, emit: (result) => emitted.push(result) });
    const a = task('a');
    const b = task('b');
    const c = task('c');
    expect(await settled(runner.add('a', 5, a.run, failed))).toBe(true);
    // a and b fill the window: the producer waits
    const addingB = runner.add('b', 5, b.run, failed);
    expect(await settled(addingB)).toBe(false);
    // b done: only its result is held, behind a's
    b.finish();
    expect(await settled(addingB)).toBe(true);
    expect(emitted).toEqual([]);
    const addingC = runner.add('c', 5, c.run, failed);
    expect(await settled(addingC)).toBe(false);
    a.finish();
    expect(await settled(addingC)).toBe(true);
    expect(emitted).toEqual(['a', 'b']);
    c.finish();
    await runner.finished();
    expect(emitted).toEqual(['a', 'b', 'c']);
  });

  it('runs a task larger than the byte window alone', async () => {
    const emitted: string[] = [];
    const runner = createOrderedRunner<string>({ concurrency: 16, window: 100, windowBytes: 10, emit: (result) => emitted.push(result) });
    const large = task('large');
    const adding = runner.add('large', 50, large.run, failed);
    expect(await settled(adding)).toBe(false);
    large.finish();
    expect(await settled(adding)).toBe(true);
    await runner.add('small', 1, async () => 'small', failed);
    await runner.finished();
    expect(emitted).toEqual(['large', 'small']);
  });
});
