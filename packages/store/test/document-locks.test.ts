import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createDocumentLocks } from '../src/document-locks.js';

describe('createDocumentLocks', () => {
  it('runs tasks of one key one after another, in call order', async () => {
    const { exclusive } = createDocumentLocks();
    const trace: string[] = [];
    const task = (name: string, ms: number) =>
      exclusive('k', async () => {
        trace.push(`${name}:start`);
        await sleep(ms);
        trace.push(`${name}:end`);
        return name;
      });
    await expect(Promise.all([task('a', 20), task('b', 1), task('c', 5)])).resolves.toEqual(['a', 'b', 'c']);
    expect(trace).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  });

  it('runs tasks of different keys side by side', async () => {
    const { exclusive } = createDocumentLocks();
    const trace: string[] = [];
    const task = (key: string, ms: number) =>
      exclusive(key, async () => {
        trace.push(`${key}:start`);
        await sleep(ms);
        trace.push(`${key}:end`);
      });
    await Promise.all([task('x', 20), task('y', 1)]);
    expect(trace).toEqual(['x:start', 'y:start', 'y:end', 'x:end']);
  });

  it('goes on with the next task after one fails, and passes the failure to its caller', async () => {
    const { exclusive } = createDocumentLocks();
    const failing = exclusive('k', async () => {
      throw new Error('boom');
    });
    const next = exclusive('k', async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });

  it('holds several keys at once: a task on any of them waits, tasks on other keys do not', async () => {
    const { exclusive, exclusiveAll } = createDocumentLocks();
    const trace: string[] = [];
    const all = exclusiveAll(['b', 'a', 'b'], async () => {
      trace.push('all:start');
      await sleep(20);
      trace.push('all:end');
    });
    const onA = exclusive('a', async () => void trace.push('a'));
    const onC = exclusive('c', async () => void trace.push('c'));
    await Promise.all([all, onA, onC]);
    expect(trace.indexOf('a')).toBeGreaterThan(trace.indexOf('all:end'));
    expect(trace.indexOf('c')).toBeLessThan(trace.indexOf('all:end'));
  });

  it('lets two callers that hold overlapping sets of keys in any order both finish', async () => {
    const { exclusiveAll } = createDocumentLocks();
    const done = await Promise.all([
      exclusiveAll(['x', 'y'], async () => {
        await sleep(5);
        return 'xy';
      }),
      exclusiveAll(['y', 'x'], async () => 'yx'),
    ]);
    expect(done).toEqual(['xy', 'yx']);
  });
});
