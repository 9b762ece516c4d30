/**
 * Runs tasks side by side, except that tasks of one key run one after another in the order they came;
 * their results come out in the order the tasks came. At most `concurrency` run at once and at most
 * `window` are held (running, waiting for their key, or done and waiting for the ones before them to
 * finish), so that a producer feeding it waits (`add` resolves) instead of filling memory.
 */
export interface OrderedRunnerOptions<Result> {
  concurrency: number;
  window: number;
  /** Each result, in the order the tasks were added. */
  emit(result: Result): void;
}

interface Entry<Result> {
  key: string;
  run: () => Promise<Result>;
  failed: (error: unknown) => Result;
  result?: { value: Result };
}

export function createOrderedRunner<Result>({ concurrency, window, emit }: OrderedRunnerOptions<Result>) {
  const held: Entry<Result>[] = [];
  /** Per key, the tasks not yet started, in order; a key present here has one running. */
  const queued = new Map<string, Entry<Result>[]>();
  const ready: Entry<Result>[] = [];
  let running = 0;
  let room: (() => void) | undefined;
  let drained: (() => void) | undefined;

  function startReady(): void {
    while (running < concurrency && ready.length > 0) {
      const entry = ready.shift()!;
      running += 1;
      entry
        .run()
        .then(
          (value) => (entry.result = { value }),
          (error: unknown) => (entry.result = { value: entry.failed(error) }),
        )
        .finally(() => {
          running -= 1;
          const next = queued.get(entry.key)?.shift();
          if (next === undefined) queued.delete(entry.key);
          else ready.push(next);
          flush();
          startReady();
        });
    }
  }

  function flush(): void {
    while (held[0]?.result !== undefined) emit(held.shift()!.result!.value);
    if (held.length < window) room?.();
    if (held.length === 0) drained?.();
  }

  return {
    /** Adds a task, and the result that stands for it if it fails; resolves once there is room for the next. */
    async add(key: string, run: () => Promise<Result>, failed: (error: unknown) => Result): Promise<void> {
      const entry: Entry<Result> = { key, run, failed };
      held.push(entry);
      const waiting = queued.get(key);
      if (waiting === undefined) {
        queued.set(key, []);
        ready.push(entry);
        startReady();
      } else {
        waiting.push(entry);
      }
      while (held.length >= window) await new Promise<void>((resolve) => (room = resolve));
    },
    /** Resolves when every task added has run and its result was emitted. */
    async finished(): Promise<void> {
      while (held.length > 0) await new Promise<void>((resolve) => (drained = resolve));
    },
  };
}
