import { Worker } from 'node:worker_threads';
import type { ExactSolution } from '../domain/exact.js';
import type { ExactInputs } from '../domain/tenant-matching.js';

/** Bounds of one solve: seconds per component, the component size from which a solver of its own is loaded, the largest model. */
export interface SolveLimits {
  readonly timeLimitSeconds?: number;
  /** HiGHS's WebAssembly memory only grows: a large component gets an instance of its own, dropped after it. */
  readonly freshAbove?: number;
  /** See ExactOptions.maxNonzeros. */
  readonly maxNonzeros?: number;
}

/** One component as it was solved, without its assignment (the joined one has it). */
export type SolvedComponent = Omit<ExactSolution, 'assignment'> & { key: string; shifts: number; resources: number };

export interface Solved {
  /** availability id → transport resource id, over every component solved. */
  readonly assignment: Map<string, string>;
  readonly components: readonly SolvedComponent[];
}

/** A solve as the main thread saw it: how long it waited for the jobs before it, and how long it ran. */
export interface TimedSolve extends Solved {
  readonly queuedSeconds: number;
  readonly solveSeconds: number;
}

export type SolveRequest = { id: number; inputs: ExactInputs; limits: SolveLimits };
export type SolveReply = ({ id: number } & Solved) | { id: number; error: unknown };

/**
 * HiGHS in a worker thread: it is synchronous and single-threaded, and a component may take seconds. Each
 * job gets a thread of its own, ended after it: HiGHS's WebAssembly memory only grows, and only ending the
 * thread gives it back.
 */
export interface ExactWorker {
  /** Solves the inputs' components (exact.ts solveAll) off the main thread; jobs run one at a time, in the order asked. */
  solve(inputs: ExactInputs, limits?: SolveLimits): Promise<TimedSolve>;
  /** Stops the worker; a job in hand fails. */
  close(): Promise<void>;
}

// the built service runs dist/resolve/solve-worker.js; vitest runs the sources, whose worker Node runs as TypeScript
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './solve-worker.ts' : './solve-worker.js', import.meta.url);

/** One job at a time, each in a thread of its own; idle, it keeps no thread. */
export function createExactWorker(): ExactWorker {
  let current: Worker | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let nextId = 0;
  let closed = false;

  function run(inputs: ExactInputs, limits: SolveLimits, asked: number): Promise<TimedSolve> {
    if (closed) return Promise.reject(new Error('exact worker: closed'));
    const started = performance.now();
    const thread = new Worker(WORKER_URL);
    current = thread;
    const id = nextId++;
    return new Promise<TimedSolve>((resolve, reject) => {
      const settle = () => {
        thread.off('message', onMessage).off('error', onFailure).off('exit', onFailure);
        if (current === thread) current = undefined;
        void thread.terminate();
      };
      const onMessage = (reply: SolveReply) => {
        if (reply.id !== id) return;
        settle();
        if ('error' in reply) reject(reply.error);
        else {
          const { assignment, components } = reply;
          resolve({ assignment, components, queuedSeconds: (started - asked) / 1000, solveSeconds: (performance.now() - started) / 1000 });
        }
      };
      const onFailure = (cause: unknown) => {
        settle();
        reject(new Error('exact worker: the worker thread stopped', { cause }));
      };
      thread.on('message', onMessage).on('error', onFailure).on('exit', onFailure);
      thread.postMessage({ id, inputs, limits } satisfies SolveRequest);
    });
  }

  return {
    solve(inputs, limits = {}) {
      const asked = performance.now();
      const job = queue.then(() => run(inputs, limits, asked));
      queue = job.catch(() => undefined);
      return job;
    },
    async close() {
      closed = true;
      await current?.terminate();
      current = undefined;
    },
  };
}
