/**
 * Serialises the writes of one process to one document: tasks that share a key run one after another,
 * tasks of different keys side by side. The versioned writes and the outbox clearing of a database
 * share one instance. On MongoDB that only saves retries; on FerretDB v1, whose updates are not atomic
 * (a conditional update can report success for a write another one overwrote), it is what keeps a
 * process's writes to a document apart.
 */
export interface DocumentLocks {
  exclusive<T>(key: string, task: () => Promise<T>): Promise<T>;
}

export function createDocumentLocks(): DocumentLocks {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async exclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const run = previous.then(task, task);
      const tail = run.catch(() => undefined);
      tails.set(key, tail);
      try {
        return await run;
      } finally {
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}
