/** Runs at most `limit` tasks at once; `run` waits for a free slot before it starts the task. */
export interface TaskPool {
  /** Resolves once the task has started; the task must not reject (handle its errors inside). */
  run(task: () => Promise<void>): Promise<void>;
  /** Resolves when every started task has finished. */
  drain(): Promise<void>;
}

export function createTaskPool(limit: number): TaskPool {
  const running = new Set<Promise<void>>();
  return {
    async run(task) {
      while (running.size >= limit) await Promise.race(running);
      const done: Promise<void> = task().finally(() => running.delete(done));
      running.add(done);
    },
    async drain() {
      await Promise.all(running);
    },
  };
}
