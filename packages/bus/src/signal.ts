/** Wakes whoever waits: `wait()` resolves, and `once` listeners run, at the next `notify()`. */
export interface Signal {
  wait(): Promise<void>;
  /** Calls `listener` at the next notify(); returns how to stop listening before that. */
  once(listener: () => void): () => void;
  notify(): void;
  /** How many wait now (what a long-lived waiter leaves behind would show here). */
  readonly waiting: number;
}

export function createSignal(): Signal {
  const listeners = new Set<() => void>();
  const once = (listener: () => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return {
    wait: () => new Promise<void>((resolve) => void once(resolve)),
    once,
    notify() {
      const woken = [...listeners];
      listeners.clear();
      for (const listener of woken) listener();
    },
    get waiting() {
      return listeners.size;
    },
  };
}

/** Resolves after `ms`, or at once when `signal` is notified (a pause that shutdown can cut short). */
export function pause(ms: number, signal: Signal): Promise<void> {
  return new Promise((resolve) => {
    const stopListening = signal.once(() => {
      clearTimeout(timer);
      resolve();
    });
    const timer = setTimeout(() => {
      stopListening();
      resolve();
    }, ms);
  });
}
