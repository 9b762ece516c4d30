import type { ExactInputs } from '../domain/tenant-matching.js';
import { createExactWorker, type ExactWorker, type SolveLimits, type Solved, type TimedSolve } from './exact-worker.js';

/**
 * The background exact re-solve (DESIGN §6, issue 11): after a burst of changes to a tenant, its changed
 * location components are solved exactly off the main thread and the result adopted into the live state.
 */
export interface Resolver {
  /** The tenant's inputs changed: its re-solve is due once it has been quiet for a while (see ResolverOptions). */
  changed(tenant: string): void;
  /** Forgets a tenant this replica gives up: no re-solve is started for it any more. */
  forget(tenant: string): void;
  /** How many tenants have a re-solve due or running. */
  pending(): number;
  /** Stops: no re-solve is started any more, a solve in hand is dropped, and the worker thread stops. */
  close(): Promise<void>;
}

export interface ResolverOptions {
  /**
   * The tenant's inputs in parts (TenantMatching.exactInputParts), taken in its serialized turn;
   * `undefined` when it is not loaded here.
   */
  inputsOf(tenant: string): Promise<readonly ExactInputs[] | undefined>;
  /** Adopts a part's assignment (TenantMatching.adopt) and writes what it touched, in the tenant's serialized turn. */
  adopt(tenant: string, inputs: ExactInputs, assignment: ReadonlyMap<string, string>): Promise<void>;
  /** A failed re-solve: the tenant is tried again after its next change. */
  onError?(tenant: string, error: unknown): void;
  /** Solves the inputs; a worker thread of the resolver's own unless given (tests). */
  solve?(inputs: ExactInputs): Promise<Pick<Solved, 'assignment'> & Partial<TimedSolve>>;
  /** Told of each solve: how long it waited for the solver, how long it ran, and each component's outcome. */
  observe?(tenant: string, solved: Partial<TimedSolve>): void;
  /** A tenant is re-solved once no change came for this long (ms)… */
  quietMs?: number;
  /** …or once its first change not yet solved is this old, should changes keep coming (ms)… */
  maxWaitMs?: number;
  /** …but never sooner than this after its last re-solve started (ms). */
  minIntervalMs?: number;
  /** Per component; the solver's best so far is adopted when it is reached (and only if it is better than what holds). */
  timeLimitSeconds?: number;
  /** See SolveLimits. */
  freshAbove?: number;
  /** See SolveLimits. */
  maxNonzeros?: number;
}

/** One tenant's schedule. */
interface Schedule {
  /** When its first change not yet handed to a solve came, and its last one. */
  firstChange?: number;
  lastChange: number;
  lastStart: number;
  timer?: ReturnType<typeof setTimeout>;
  running: boolean;
}

/**
 * One re-solve per tenant at a time; a change during one makes another due after it. A re-solve goes part
 * by part, each solved and adopted before the next is asked for: tenants share one worker, whose jobs run
 * in the order asked, so that the parts of tenants due together take turns, and a tenant's large re-solve
 * holds another's up by one part at most. Timers and the clock are the global ones (vitest's fake ones in tests).
 */
export function createResolver(options: ResolverOptions): Resolver {
  const { quietMs = 2_000, maxWaitMs = 60_000, minIntervalMs = 10_000, timeLimitSeconds = 30, freshAbove = 1_500, maxNonzeros } = options;
  const worker = options.solve === undefined ? createExactWorker() : undefined;
  const limits: SolveLimits = { timeLimitSeconds, freshAbove, ...(maxNonzeros === undefined ? {} : { maxNonzeros }) };
  const solve = options.solve ?? ((inputs: ExactInputs) => (worker as ExactWorker).solve(inputs, limits));
  const schedules = new Map<string, Schedule>();
  const inHand = new Set<Promise<void>>();
  let closed = false;

  function plan(tenant: string, schedule: Schedule): void {
    clearTimeout(schedule.timer);
    const firstChange = schedule.firstChange ?? schedule.lastChange;
    const due = Math.max(Math.min(schedule.lastChange + quietMs, firstChange + maxWaitMs), schedule.lastStart + minIntervalMs);
    schedule.timer = setTimeout(() => start(tenant, schedule), Math.max(0, due - Date.now()));
    // a re-solve still to come keeps no process alive
    schedule.timer.unref();
  }

  function start(tenant: string, schedule: Schedule): void {
    schedule.timer = undefined;
    schedule.running = true;
    schedule.firstChange = undefined;
    schedule.lastStart = Date.now();
    const work = resolve(tenant).finally(() => {
      inHand.delete(work);
      schedule.running = false;
      // changes that came during the solve
      if (!closed && schedules.get(tenant) === schedule && schedule.firstChange !== undefined) plan(tenant, schedule);
    });
    inHand.add(work);
  }

  async function resolve(tenant: string): Promise<void> {
    try {
      for (const inputs of (await options.inputsOf(tenant)) ?? []) {
        if (closed || !schedules.has(tenant)) return;
        if (inputs.shifts.length === 0) continue;
        const solved = await solve(inputs);
        options.observe?.(tenant, solved);
        if (!closed && schedules.has(tenant)) await options.adopt(tenant, inputs, solved.assignment);
      }
    } catch (error) {
      if (!closed) options.onError?.(tenant, error);
    }
  }

  return {
    changed(tenant) {
      if (closed) return;
      const now = Date.now();
      const schedule = schedules.get(tenant) ?? { lastChange: now, lastStart: -Infinity, running: false };
      schedules.set(tenant, schedule);
      schedule.firstChange ??= now;
      schedule.lastChange = now;
      if (!schedule.running) plan(tenant, schedule);
    },
    forget(tenant) {
      clearTimeout(schedules.get(tenant)?.timer);
      schedules.delete(tenant);
    },
    pending() {
      let pending = 0;
      for (const schedule of schedules.values()) if (schedule.running || schedule.timer !== undefined) pending += 1;
      return pending;
    },
    async close() {
      closed = true;
      for (const schedule of schedules.values()) clearTimeout(schedule.timer);
      schedules.clear();
      await worker?.close();
      await Promise.all(inHand);
    },
  };
}
