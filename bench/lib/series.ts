import type { MemoryDelta, MemoryProbe } from './memory.ts';
import { msSince } from './stats.ts';

/** What one measured series of operations gave. */
export interface SeriesResult {
  label: string;
  ops: number;
  /** Operations in flight at once. */
  concurrency: number;
  totalMs: number;
  /** One latency per operation that succeeded, in milliseconds. */
  latenciesMs: number[];
  /** Operations that failed, by error message. */
  errors: Map<string, number>;
  /** Absent when the series ran interleaved with others. */
  memory?: MemoryDelta;
}

export interface SeriesOptions {
  label: string;
  ops: number;
  /** Operations in flight at once (default 1: one after another). */
  concurrency?: number;
  /**
   * Runs operation `index` (0 … ops-1). Its latency is the time until the promise settles, unless
   * it resolves to a number: then that number is its latency in milliseconds (a latency that does
   * not start when the operation does).
   */
  operation: (index: number) => Promise<unknown>;
}

export interface OperationsOutcome {
  latenciesMs: number[];
  errors: Map<string, number>;
}

/**
 * Runs `ops` operations with `concurrency` of them in flight at once. A failed operation is counted
 * and the series goes on: how often a write fails under load is a result too.
 */
export async function runOperations(options: Omit<SeriesOptions, 'label'>): Promise<OperationsOutcome> {
  const { ops, concurrency = 1, operation } = options;
  const latenciesMs: number[] = [];
  const errors = new Map<string, number>();
  let next = 0;
  async function worker(): Promise<void> {
    while (next < ops) {
      const index = next;
      next += 1;
      const start = process.hrtime.bigint();
      try {
        const outcome = await operation(index);
        latenciesMs.push(typeof outcome === 'number' ? outcome : msSince(start));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        errors.set(message, (errors.get(message) ?? 0) + 1);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, ops) }, worker));
  return { latenciesMs, errors };
}

/** Measures a series: total time, per-operation latencies, and memory kept over it. */
export async function measureSeries(probe: MemoryProbe, options: SeriesOptions): Promise<SeriesResult> {
  const { label, ops, concurrency = 1 } = options;
  const { result, memory } = await probe.around(async () => {
    const start = process.hrtime.bigint();
    const outcome = await runOperations(options);
    return { ...outcome, totalMs: msSince(start) };
  });
  const series = { label, ops, concurrency, ...result, memory };
  reportProgress(series);
  return series;
}

export interface InterleavedSeries {
  label: string;
  operation: (index: number) => Promise<unknown>;
}

/**
 * Measures sequential series operation by operation in turn (a0 b0 c0 a1 b1 c1 …), so that a
 * server whose speed drifts over the run weighs on each series alike. A series' total is the sum
 * of its latencies; memory cannot be told apart per series and is left out.
 */
export async function measureInterleaved(ops: number, series: InterleavedSeries[]): Promise<SeriesResult[]> {
  const results: SeriesResult[] = series.map(({ label }) => ({ label, ops, concurrency: 1, totalMs: 0, latenciesMs: [], errors: new Map() }));
  for (let index = 0; index < ops; index += 1) {
    for (const [position, { operation }] of series.entries()) {
      const result = results[position] as SeriesResult;
      const { latenciesMs, errors } = await runOperations({ ops: 1, operation: () => operation(index) });
      result.latenciesMs.push(...latenciesMs);
      result.totalMs += latenciesMs.reduce((sum, latency) => sum + latency, 0);
      for (const [message, count] of errors) result.errors.set(message, (result.errors.get(message) ?? 0) + count);
    }
  }
  for (const result of results) reportProgress(result);
  return results;
}

/** One line on stderr as each series ends, so that a long run shows where it is. */
export function reportProgress(series: SeriesResult): void {
  const failed = [...series.errors.values()].reduce((sum, count) => sum + count, 0);
  process.stderr.write(
    `  ${series.label}: ${series.ops} ops, ${series.concurrency} in flight, ${Math.round(series.totalMs)} ms` +
      `${failed > 0 ? `, ${failed} failed` : ''}\n`,
  );
}

/** Runs operations unmeasured, so that connections, JIT and caches are warm before a series. */
export async function warmUp(options: Omit<SeriesOptions, 'label'>): Promise<void> {
  const { errors } = await runOperations(options);
  if (errors.size > 0) throw new Error(`warm-up failed: ${[...errors.keys()].join('; ')}`);
}
