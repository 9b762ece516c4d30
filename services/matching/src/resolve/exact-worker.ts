import { Worker } from 'node:worker_threads';
import type { ExactSolution } from '../domain/exact.js';
import type { ExactInputs } from '../domain/tenant-matching.js';

/** Bounds of one solve: seconds per component, and the component size from which a solver of its own is loaded. */
export interface SolveLimits {
  readonly timeLimitSeconds?: number;
  /** HiGHS's WebAssembly memory only grows: a large component gets an instance of its own, dropped after it. */
  readonly freshAbove?: number;
}

/** One component as it was solved, without its assignment (the joined one has it). */
export type SolvedComponent = Omit<ExactSolution, 'assignment'> & { key: string; shifts: number; resources: number };

export interface Solved {
  /** availability id → transport resource id, over every component solved. */
  readonly assignment: Map<string, string>;
  readonly components: readonly SolvedComponent[];
}

export type SolveRequest = { id: number; inputs: ExactInputs; limits: SolveLimits };
export type SolveReply = ({ id: number } & Solved) | { id: number; error: unknown };

/** HiGHS in a worker thread: it is synchronous and single-threaded, and a component may take seconds. */
export interface ExactWorker {
  /** Solves the inputs' components (exact.ts solveAll) off the main thread; jobs run one at a time, in the order asked. */
  solve(inputs: ExactInputs, limits?: SolveLimits): Promise<Solved>;
  /** Stops the worker; a job in hand fails. */
  close(): Promise<void>;
}

// the built service runs dist/resolve/solve-worker.js; vitest runs the sources, whose worker Node runs as TypeScript
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './solve-worker.ts' : './solve-worker.js', import.meta.url);

/** One worker, started on the first job and again after one that died; idle, it keeps no process alive. */
export function createExactWorker(): ExactWorker {
  let worker: Worker | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let nextId = 0;
  let closed = false;

  function run(inputs: ExactInputs, limits: SolveLimits): Promise<Solved> {
    if (closed) return Promise.reject(new Error('exact worker: closed'));
    const thread = worker ?? new Worker(WORKER_URL);
    worker = thread;
    const id = nextId++;
    return new Promise<Solved>((resolve, reject) => {
      const settle = () => {
        thread.off('message', onMessage).off('error', onFailure).off('exit', onFailure);
        thread.unref();
      };
      const onMessage = (reply: SolveReply) => {
        if (reply.id !== id) return;
        settle();
        if ('error' in reply) reject(reply.error);
        else resolve({ assignment: reply.assignment, components: reply.components });
      };
      const onFailure = (cause: unknown) => {
        settle();
        if (worker === thread) worker = undefined;
        reject(new Error('exact worker: the worker thread stopped', { cause }));
      };
      thread.on('message', onMessage).on('error', onFailure).on('exit', onFailure);
      thread.ref();
      thread.postMessage({ id, inputs, limits } satisfies SolveRequest);
    });
  }

  return {
    solve(inputs, limits = {}) {
      const job = queue.then(() => run(inputs, limits));
      queue = job.catch(() => undefined);
      return job;
    },
    async close() {
      closed = true;
      await worker?.terminate();
      worker = undefined;
    },
  };
}
