/**
 * Serialises the writes of one process to one document: tasks that share a key run one after another,
 * tasks of different keys side by side. A store's writes, its outbox clearing and its maintenance
 * share one instance. On MongoDB that only saves retries; on FerretDB v1, whose updates are not atomic
 * (a conditional update can report success for a write another one overwrote, and updates rewrite whole
 * documents), it is what keeps a process's writes to a document apart.
 */
export interface DocumentLocks {
  exclusive<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Holds every key at once (taken in sorted order, so that two callers never wait on each other). */
  exclusiveAll<T>(keys: readonly string[], task: () => Promise<T>): Promise<T>;
}

export function createDocumentLocks(): DocumentLocks {
  const tails = new Map<string, Promise<unknown>>();

  function exclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    return run.finally(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
  }

  function exclusiveAll<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const holdFrom = (index: number): Promise<T> => {
      const key = sorted[index];
      return key === undefined ? task() : exclusive(key, () => holdFrom(index + 1));
    };
    return holdFrom(0);
  }

  return { exclusive, exclusiveAll };
}
