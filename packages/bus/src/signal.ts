/** Wakes whoever waits: `wait()` resolves at the next `notify()`. */
export interface Signal {
  wait(): Promise<void>;
  notify(): void;
}

export function createSignal(): Signal {
  let waiters: (() => void)[] = [];
  return {
    wait: () => new Promise<void>((resolve) => waiters.push(resolve)),
    notify() {
      const woken = waiters;
      waiters = [];
      for (const resolve of woken) resolve();
    },
  };
}

/** Resolves after `ms`, or at once when `signal` is notified (a pause that shutdown can cut short). */
export function pause(ms: number, signal: Signal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void signal.wait().then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
