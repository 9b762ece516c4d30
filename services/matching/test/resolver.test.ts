import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TenantMatching, type ExactInputs, type Touched } from '../src/domain/tenant-matching.js';
import { createResolver, type Resolver, type ResolverOptions } from '../src/resolve/resolver.js';
import { shift, truck } from './fixtures.js';
import { BEFORE_EVERYTHING, behindCase } from './tenant-inputs.js';

const INPUTS: ExactInputs = { revision: 1, shifts: [shift('a')], resources: [truck('r1')], frozen: [], existing: new Map() };

/** A promise settled from outside: a solve that takes as long as the test says. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

let resolver: Resolver | undefined;
afterEach(async () => {
  await resolver?.close();
  resolver = undefined;
});

describe('the re-solve schedule', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A resolver over fake timers whose solves return at once unless told; it records what it solved and adopted. */
  function scheduled(options: Partial<ResolverOptions> = {}) {
    const solved: number[] = [];
    const adopted: string[] = [];
    const errors: unknown[] = [];
    resolver = createResolver({
      inputsOf: async () => [INPUTS],
      adopt: async (tenant) => {
        adopted.push(tenant);
      },
      solve: async () => {
        solved.push(Date.now());
        return { assignment: new Map() };
      },
      onError: (_, error) => errors.push(error),
      quietMs: 1_000,
      maxWaitMs: 60_000,
      minIntervalMs: 0,
      ...options,
    });
    return { resolver, solved, adopted, errors, start: Date.now() };
  }

  it('re-solves a tenant once it has been quiet for quietMs, once for the whole burst, and adopts the result', async () => {
    const { resolver, solved, adopted, start } = scheduled();
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(600);
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(999);
    expect(solved).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(solved).toEqual([start + 1_600]);
    expect(adopted).toEqual(['t1']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(solved).toHaveLength(1);
  });

  it('re-solves a tenant whose changes keep coming once its first unsolved change is maxWaitMs old', async () => {
    const { resolver, solved, start } = scheduled({ maxWaitMs: 3_000 });
    for (let elapsed = 0; elapsed < 5_000; elapsed += 500) {
      resolver.changed('t1');
      await vi.advanceTimersByTimeAsync(500);
    }
    expect(solved).toEqual([start + 3_000]);
  });

  it('starts no re-solve sooner than minIntervalMs after the last one started', async () => {
    const { resolver, solved, start } = scheduled({ minIntervalMs: 10_000 });
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(2_000);
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(solved).toEqual([start + 1_000, start + 11_000]);
  });

  it('makes another re-solve due after one during which changes came, keeps tenants apart, and counts those due or running', async () => {
    const first = deferred<{ assignment: Map<string, string> }>();
    const solves: string[] = [];
    const { resolver, start } = scheduled({
      inputsOf: async (tenant) => [{ ...INPUTS, revision: tenant === 't1' ? 1 : 2 }],
      solve: (inputs) => {
        solves.push(`${inputs.revision}@${Date.now() - start}`);
        return solves.length === 1 ? first.promise : Promise.resolve({ assignment: new Map() });
      },
    });
    expect(resolver.pending()).toBe(0);
    resolver.changed('t1');
    expect(resolver.pending()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    resolver.changed('t1');
    resolver.changed('t2');
    expect(resolver.pending()).toBe(2);
    await vi.advanceTimersByTimeAsync(5_000);
    // t1's second waits for its first; t2 goes its own way
    expect(solves).toEqual(['1@1000', '2@2000']);
    expect(resolver.pending()).toBe(1);
    first.resolve({ assignment: new Map() });
    await vi.advanceTimersByTimeAsync(0);
    expect(solves).toEqual(['1@1000', '2@2000', '1@6000']);
    expect(resolver.pending()).toBe(0);
  });

  it('goes part by part, each solved and adopted before the next is asked for, so that another tenant\'s parts come in between', async () => {
    const solves: { part: string; done: ReturnType<typeof deferred<{ assignment: Map<string, string> }>> }[] = [];
    const adoptedParts: string[] = [];
    const part = (tenant: string, index: number): ExactInputs => ({ ...INPUTS, revision: index, shifts: [shift(`${tenant}-${index}`)] });
    const { resolver } = scheduled({
      inputsOf: async (tenant) => (tenant === 't1' ? [part('t1', 1), part('t1', 2), part('t1', 3)] : [part('t2', 1)]),
      solve: (inputs) => {
        const done = deferred<{ assignment: Map<string, string> }>();
        solves.push({ part: inputs.shifts[0]?.availabilityId ?? '', done });
        return done.promise;
      },
      adopt: async (_, inputs) => void adoptedParts.push(inputs.shifts[0]?.availabilityId ?? ''),
    });
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(500);
    resolver.changed('t2');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(solves.map(({ part }) => part)).toEqual(['t1-1', 't2-1']);
    solves[0]?.done.resolve({ assignment: new Map() });
    await vi.advanceTimersByTimeAsync(0);
    // the worker runs its jobs in the order asked: t2's part before t1's second
    expect(solves.map(({ part }) => part)).toEqual(['t1-1', 't2-1', 't1-2']);
    for (const index of [1, 2]) {
      solves[index]?.done.resolve({ assignment: new Map() });
      await vi.advanceTimersByTimeAsync(0);
    }
    solves[3]?.done.resolve({ assignment: new Map() });
    await vi.advanceTimersByTimeAsync(0);
    expect(solves.map(({ part }) => part)).toEqual(['t1-1', 't2-1', 't1-2', 't1-3']);
    expect(adoptedParts).toEqual(['t1-1', 't2-1', 't1-2', 't1-3']);
  });

  it('adopts nothing for a tenant forgotten meanwhile, and solves nothing for one with nothing changed', async () => {
    const solve = deferred<{ assignment: Map<string, string> }>();
    const { resolver, adopted } = scheduled({ solve: () => solve.promise });
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(1_000);
    resolver.forget('t1');
    solve.resolve({ assignment: new Map() });
    await vi.advanceTimersByTimeAsync(0);
    expect(adopted).toEqual([]);
    await resolver.close();

    const idle = scheduled({ inputsOf: async (tenant) => (tenant === 'gone' ? undefined : [{ ...INPUTS, shifts: [] }]) });
    idle.resolver.changed('gone');
    idle.resolver.changed('unchanged');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(idle.solved).toEqual([]);
  });

  it('reports a failed re-solve, and tries the tenant again after its next change', async () => {
    let fail = true;
    const { resolver, solved, errors, adopted } = scheduled({
      solve: async () => {
        solved.push(Date.now());
        if (fail) throw new Error('solver broke');
        return { assignment: new Map() };
      },
    });
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(errors).toEqual([new Error('solver broke')]);
    expect(solved).toHaveLength(1);
    fail = false;
    resolver.changed('t1');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(solved).toHaveLength(2);
    expect(adopted).toEqual(['t1']);
  });
});

describe('the resolver with its worker thread', () => {
  it('brings a tenant the incremental matcher left behind to the optimum once a burst of events is over', async () => {
    const tenant = new TenantMatching();
    const written: Touched[] = [];
    resolver = createResolver({
      inputsOf: async () => tenant.exactInputParts(2_000),
      adopt: async (_, inputs, assignment) => {
        written.push(tenant.adopt(inputs, assignment));
      },
      quietMs: 50,
    });
    // the case of tenant-inputs.ts where the incremental matcher falls short, as a burst of events
    for (const event of behindCase()) {
      tenant.apply(event, BEFORE_EVERYTHING);
      resolver.changed('t1');
    }
    const ids = ['s1', 's2', 's3', 's4', 's5'];
    const placed = () => Object.fromEntries(ids.map((id) => [id, tenant.combination(id)?.transportResourceIds[0]]));
    expect(placed()).toEqual({ s1: 'r0', s2: undefined, s3: 'r1', s4: undefined, s5: 'r1' });

    await vi.waitFor(() => expect(written).toHaveLength(1), { timeout: 20_000, interval: 50 });
    expect(written[0]?.combinations).toEqual(new Set(['s1', 's2', 's4', 's5']));
    expect(placed()).toEqual({ s1: undefined, s2: 'r0', s3: 'r1', s4: 'r1', s5: 'r0' });
  }, 30_000);
});
