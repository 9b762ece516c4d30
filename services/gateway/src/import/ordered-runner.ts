/**
 * Runs tasks side by side, except that tasks of one key run one after another in the order they came;
 * their results come out in the order the tasks came. At most `concurrency` run at once, and at most
 * `window` are held (running, waiting for their key, or done and waiting for the ones before them to
 * finish) and `windowBytes` of tasks not yet done, so that a producer feeding it waits (`add` resolves)
 * instead of filling memory. A task done lets go of what it ran with: only its result is held.
 */
export interface OrderedRunnerOptions<Result> {
  concurrency: number;
  window: number;
  /** The sum of the `bytes` of tasks not yet done; one task larger still runs, alone. */
  windowBytes: number;
  /** Each result, in the order the tasks were added. */
  emit(result: Result): void;
}

interface Entry<Result> {
  key: string;
  bytes: number;
  /** Until the task is done: then what it closes over (a line's body) may go. */
  run?: () => Promise<Result>;
  failed: (error: unknown) => Result;
  result?: { value: Result };
}

export function createOrderedRunner<Result>({ concurrency, window, windowBytes, emit }: OrderedRunnerOptions<Result>) {
  const held: Entry<Result>[] = [];
  /** Per key, the tasks not yet started, in order; a key present here has one running. */
  const queued = new Map<string, Entry<Result>[]>();
  const ready: Entry<Result>[] = [];
  let running = 0;
  /** The bytes of the held tasks not yet done. */
  let pendingBytes = 0;
  let room: (() => void) | undefined;
  let drained: (() => void) | undefined;
  const full = () => held.length >= window || pendingBytes >= windowBytes;

  function startReady(): void {
    while (running < concurrency && ready.length > 0) {
      const entry = ready.shift()!;
      running += 1;
      entry.run!()
        .then(
          (value) => (entry.result = { value }),
          (error: unknown) => (entry.result = { value: entry.failed(error) }),
        )
        .finally(() => {
          running -= 1;
          pendingBytes -= entry.bytes;
          delete entry.run;
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
    if (!full()) room?.();
    if (held.length === 0) drained?.();
  }

  return {
    /** Adds a task of `bytes`, and the result that stands for it if it fails; resolves once there is room for the next. */
    async add(key: string, bytes: number, run: () => Promise<Result>, failed: (error: unknown) => Result): Promise<void> {
      const entry: Entry<Result> = { key, bytes, run, failed };
      held.push(entry);
      pendingBytes += bytes;
      const waiting = queued.get(key);
      if (waiting === undefined) {
        queued.set(key, []);
        ready.push(entry);
        startReady();
      } else {
        waiting.push(entry);
      }
      while (full()) await new Promise<void>((resolve) => (room = resolve));
    },
    /** Resolves when every task added has run and its result was emitted. */
    async finished(): Promise<void> {
      while (held.length > 0) await new Promise<void>((resolve) => (drained = resolve));
    },
  };
}
