import { afterEach, describe, expect, it } from 'vitest';
import { loadExactSolver, solveAll } from '../src/domain/exact.js';
import type { ExactInputs } from '../src/domain/tenant-matching.js';
import { createExactWorker, type ExactWorker, type TimedSolve } from '../src/resolve/exact-worker.js';
import { atHomeBase, shift, truck } from './fixtures.js';

/** A crowded home base over three days, seeded: shifts of three to eleven hours, some mandatory, on trucks of a few costs. */
function crowded(seed: number, shifts: number, resources: number, place = 'hb'): ExactInputs {
  let state = seed;
  const next = () => (state = (state * 48_271) % 2_147_483_647) / 2_147_483_647;
  const trucks = Array.from({ length: resources }, (_, index) =>
    truck(`${place}-r${index}`, { location: atHomeBase(place), fixedCost: (index % 5) + 0.25 * (index % 3) }),
  );
  const placed = Array.from({ length: shifts }, (_, index) => {
    const start = Math.floor(next() * 72);
    const window: [number, number] = [start, start + 3 + Math.floor(next() * 9)];
    return shift(`${place}-s${index}`, { window, location: atHomeBase(place), mandatory: next() < 0.4 });
  });
  const existing = new Map(placed.slice(0, 20).map((one, index) => [one.availabilityId, `${place}-r${index % resources}`]));
  return { revision: 0, shifts: placed, resources: trucks, frozen: [], existing };
}

const inProcess = async (inputs: ExactInputs) =>
  (await solveAll(inputs.shifts, inputs.resources, { frozen: inputs.frozen, existing: inputs.existing })).assignment;

/** Timer callbacks the main thread ran while `work` was under way. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 2);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

let worker: ExactWorker | undefined;
afterEach(async () => {
  await worker?.close();
  worker = undefined;
});

describe('the exact worker', () => {
  it('solves off the main thread and returns the assignment solveAll returns in-process', async () => {
    worker = createExactWorker();
    const inputs = crowded(7, 200, 8);
    let solved: Awaited<ReturnType<ExactWorker['solve']>> | undefined;
    const whileWorkerSolves = await ticksDuring(async () => (solved = await (worker as ExactWorker).solve(inputs)));
    let expected: Map<string, string> | undefined;
    // loaded beforehand: compiling the WebAssembly is asynchronous, the solve itself is not
    await loadExactSolver();
    const whileMainThreadSolves = await ticksDuring(async () => (expected = await inProcess(inputs)));

    expect(solved?.assignment).toEqual(expected);
    expect(solved?.components).toMatchObject([{ key: 'home-base:hb', status: 'optimal', shifts: 200, resources: 8 }]);
    // the main thread's timers keep running while the worker solves; a solve on the main thread holds them up
    expect(whileWorkerSolves).toBeGreaterThan(10 * (whileMainThreadSolves + 1));
  });

  it('runs the jobs asked at once one after the other, each with its own result', async () => {
    worker = createExactWorker();
    const jobs = [crowded(1, 60, 4, 'a'), crowded(2, 60, 4, 'b'), crowded(3, 60, 4, 'c')];
    const results = await Promise.all(jobs.map((inputs) => (worker as ExactWorker).solve(inputs)));
    for (const [index, inputs] of jobs.entries()) expect(results[index]?.assignment).toEqual(await inProcess(inputs));
    // the last one waited for the two before it
    const [first, second, third] = results.map((result) => result as TimedSolve);
    expect(third?.queuedSeconds).toBeGreaterThanOrEqual((first?.solveSeconds ?? 0) + (second?.solveSeconds ?? 0));
  });

  it('fails a job whose solve throws, and solves the next one', async () => {
    worker = createExactWorker();
    const broken = { ...crowded(4, 10, 2), shifts: [{ availabilityId: 'x' }] } as unknown as ExactInputs;
    await expect(worker.solve(broken)).rejects.toThrow();
    const inputs = crowded(5, 30, 3);
    expect((await worker.solve(inputs)).assignment).toEqual(await inProcess(inputs));
  });

  it('fails the job in hand when it is closed', async () => {
    worker = createExactWorker();
    await worker.solve(crowded(6, 10, 2));
    const job = worker.solve(crowded(6, 200, 8));
    // long enough for the job to reach the worker, far shorter than its solve
    await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.close();
    await expect(job).rejects.toThrow('stopped');
    await expect(worker.solve(crowded(6, 10, 2))).rejects.toThrow('closed');
  });
});
