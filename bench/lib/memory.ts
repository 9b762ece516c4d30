import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemoryDelta {
  /** Resident set size after minus before, in bytes. */
  rssBytes: number;
  /** Heap still in use after a full GC, after minus before, in bytes: what the series kept. */
  heapBytes: number;
}

export interface MemoryProbe {
  /** Collects garbage, then runs `work` and reports how memory changed over it. */
  around<T>(work: () => Promise<T>): Promise<{ result: T; memory: MemoryDelta }>;
  /** The heap still in use after a full GC: what is live at this moment. */
  liveHeap(): number;
}

/**
 * Memory deltas that mean something need a full GC at both ends; `gc` is exposed here rather than
 * asking every caller for `node --expose-gc`, so that `node bench/run.ts` is the whole command.
 */
export function createMemoryProbe(): MemoryProbe {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const settle = () => {
    gc();
    return process.memoryUsage();
  };
  return {
    async around(work) {
      const before = settle();
      const result = await work();
      const after = settle();
      return {
        result,
        memory: { rssBytes: after.rss - before.rss, heapBytes: after.heapUsed - before.heapUsed },
      };
    },
    liveHeap: () => settle().heapUsed,
  };
}
