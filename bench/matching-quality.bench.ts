// Matching quality: on generated tenants (bench/lib/matching-instances.ts), how close a plain greedy
// pass and the incremental matcher come to the exact optimum of DESIGN §6, solved location component by
// component with HiGHS (services/matching/src/domain/exact.ts). The incremental matcher gets the whole
// instance as inputs, one at a time through TenantMatching.apply (no database), as a bulk import would
// bring it; its per-input time is measured in-process. The exact optimum is the background re-solve's:
// TenantMatching.exactInputs solved in the re-solve's worker thread (src/resolve/exact-worker.ts), then
// adopted through TenantMatching.adopt, whose result is reported as well. No servers are used.
//
// Sizes: BENCH_MATCHING_SIZES=scarce:10000#1,plentiful:10000#1 (scenario:availabilities#seed); the
// default set keeps the run under about three minutes. BENCH_MATCHING_TIME_LIMIT: seconds per
// component for the exact solve (default 300; a component that hits it is reported, not proved).
import {
  type Combination,
  combinationsOf,
  compareObjectives,
  createExactWorker,
  DEFAULT_EXACT_MAX_NONZEROS,
  type ExactWorker,
  greedy,
  isFeasible,
  type Objective,
  objectiveOf,
  TenantMatching,
} from '@rm/matching/testing';
import type { Bench } from './lib/bench.ts';
import { generateInstance, parseSize, type MatchingInstance } from './lib/matching-instances.ts';
import { percentile, sortedAscending, msSince } from './lib/stats.ts';

const DEFAULT_SIZES = [
  'scarce:500#1',
  'scarce:500#2',
  'tight:500#1',
  'plentiful:500#1',
  'scarce:2000#1',
  'scarce:2000#2',
  'tight:2000#1',
  'tight:2000#2',
  'plentiful:2000#1',
  'scarce:5000#1',
  'plentiful:5000#1',
];
/** Components of more shifts than this get a solver of their own (HiGHS's Wasm memory only grows). */
const FRESH_SOLVER_ABOVE = 1500;

export const matchingQualityBench: Bench = {
  name: 'matching-quality',
  async run() {
    const sizes = (process.env.BENCH_MATCHING_SIZES?.split(',') ?? DEFAULT_SIZES).map(parseSize);
    const timeLimitSeconds = Number(process.env.BENCH_MATCHING_TIME_LIMIT ?? 300);
    const results: Result[] = [];
    const worker = createExactWorker();
    try {
      for (const size of sizes) {
        const instance = generateInstance(size);
        const { snapshots, resources } = instance;
        process.stderr.write(`  ${instance.name}: ${snapshots.length} availabilities, ${resources.length} transport resources\n`);
        results.push(await measure(instance, worker, timeLimitSeconds));
      }
    } finally {
      await worker.close();
    }
    printQuality(results);
    printDetails(results);
    for (const result of results) for (const problem of result.problems) console.log(`\n${result.name}: ${problem}`);
  },
};

interface Outcome {
  readonly objective: Objective;
  readonly combinations: readonly Combination[];
}

interface Result {
  readonly name: string;
  readonly availabilities: number;
  readonly mandatoryShifts: number;
  readonly resources: number;
  readonly components: number;
  readonly greedy: Outcome;
  readonly matcher: Outcome;
  readonly exact: Outcome;
  /** The engine's combinations once the re-solve is adopted. */
  readonly resolved: Outcome;
  /** Combinations the adoption wrote. */
  readonly adopted: number;
  readonly exactSeconds: number;
  /** From the inputs taken to the assignment adopted, the worker's solve included. */
  readonly resolveSeconds: number;
  readonly slowest: { key: string; seconds: number; shifts: number; columns: number; rows: number };
  /** Components whose first level (mandatory, then matched) is not proved: out of time before it. */
  readonly unproved: number;
  /** Components out of time, with the first level not proved (`hb-001: cost and below`). */
  readonly unprovedLevels: string[];
  /** Per input through TenantMatching.apply, milliseconds, ascending. */
  readonly applyMs: number[];
  readonly streamSeconds: number;
  /** Matcher combinations the exact optimum changes (moves or drops). */
  readonly changes: number;
  /** Components whose model is larger than the service's default limit: the service leaves them to the matcher. */
  readonly overServiceLimit: number;
  readonly problems: string[];
}

async function measure(instance: MatchingInstance, worker: ExactWorker, timeLimitSeconds: number): Promise<Result> {
  const { snapshots, resources } = instance;
  const problems: string[] = [];
  const outcome = (combinations: readonly Combination[], label: string): Outcome => {
    const state = { snapshots, resources, frozen: [], combinations };
    if (!isFeasible(state)) problems.push(`${label}: infeasible combinations`);
    return { objective: objectiveOf(state), combinations };
  };

  const greedyOutcome = outcome(greedy(snapshots, resources), 'greedy');

  // the incremental matcher, fed the inputs one by one
  const tenant = new TenantMatching();
  const applyMs: number[] = [];
  const streamStart = process.hrtime.bigint();
  for (const input of instance.inputs) {
    const start = process.hrtime.bigint();
    tenant.apply(input, instance.now);
    applyMs.push(msSince(start));
  }
  const streamSeconds = msSince(streamStart) / 1000;
  const built = new Map(snapshots.map((snapshot) => [snapshot.availabilityId, snapshot]));
  for (const id of tenant.availabilityIds()) {
    // the engine's snapshots must be the ones the others are given
    if (JSON.stringify(tenant.availableEmployee(id)) !== JSON.stringify(built.get(id))) {
      problems.push(`snapshot ${id} differs from the engine's`);
    }
  }
  if (tenant.availabilityIds().length !== snapshots.length) problems.push(`the engine holds ${tenant.availabilityIds().length} snapshots`);
  const matched = liveCombinations(tenant);
  const matcherOutcome = outcome(matched, 'incremental matcher');

  // the background re-solve: the exact optimum, component by component, keeping as many of the matcher's combinations as it can
  const resolveStart = process.hrtime.bigint();
  const inputs = tenant.exactInputs();
  const solved = await worker.solve(inputs, { timeLimitSeconds, freshAbove: FRESH_SOLVER_ABOVE });
  const { assignment } = solved;
  const adopted = tenant.adopt(inputs, assignment).combinations.size;
  const resolveSeconds = msSince(resolveStart) / 1000;
  let exactSeconds = 0;
  let unproved = 0;
  const unprovedLevels: string[] = [];
  let slowest: Result['slowest'] = { key: '–', seconds: 0, shifts: 0, columns: 0, rows: 0 };
  for (const solution of solved.components) {
    exactSeconds += solution.seconds;
    if (solution.status === 'time-limit') {
      if (!solution.proved.includes('matched')) unproved += 1;
      const cut = solution.stages.map((stage) => stage.name).find((name) => !solution.proved.includes(name)) ?? 'kept';
      unprovedLevels.push(`${solution.key}: ${cut} and below`);
    }
    if (solution.seconds > slowest.seconds) {
      slowest = { key: solution.key, seconds: solution.seconds, shifts: solution.shifts, columns: solution.columns, rows: solution.rows };
    }
    if (solution.seconds > 5) {
      process.stderr.write(`    ${solution.key}: ${solution.shifts} shifts, ${solution.columns} pairs, ${solution.seconds.toFixed(1)} s\n`);
    }
  }
  const exactOutcome = outcome(combinationsOf(assignment, snapshots), 'exact');
  const resolvedOutcome = outcome(liveCombinations(tenant), 'after the re-solve');
  const changes = matched.filter((one) => assignment.get(one.availabilityId) !== one.transportResourceId).length;
  if (unprovedLevels.length === 0) {
    for (const [label, other] of [['greedy', greedyOutcome], ['incremental matcher', matcherOutcome]] as const) {
      if (compareObjectives(other.objective, exactOutcome.objective) < 0) problems.push(`${label} beats the exact optimum: a solver bug`);
    }
    const resolvedGap = compareObjectives(resolvedOutcome.objective, exactOutcome.objective);
    if (resolvedGap !== 0) problems.push('the adopted re-solve is not the optimum');
  }
  return {
    name: instance.name,
    availabilities: snapshots.length,
    mandatoryShifts: snapshots.filter((one) => one.mandatory).length,
    resources: resources.length,
    components: solved.components.length,
    greedy: greedyOutcome,
    matcher: matcherOutcome,
    exact: exactOutcome,
    resolved: resolvedOutcome,
    adopted,
    exactSeconds,
    resolveSeconds,
    slowest,
    unproved,
    unprovedLevels,
    applyMs: sortedAscending(applyMs),
    streamSeconds,
    changes,
    overServiceLimit: solved.components.filter((solution) => solution.nonzeros > DEFAULT_EXACT_MAX_NONZEROS).length,
    problems,
  };
}

/** The engine's live combinations: those a frozen combination holds are not the matcher's. */
function liveCombinations(tenant: TenantMatching): Combination[] {
  return tenant.availabilityIds().flatMap((id): Combination[] => {
    const combination = tenant.combination(id);
    const [transportResourceId] = combination?.transportResourceIds ?? [];
    if (combination === undefined || combination.deploymentId !== undefined || transportResourceId === undefined) return [];
    return [{ availabilityId: id, employeeId: combination.employeeId, transportResourceId }];
  });
}

const ratio = (part: number, whole: number) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(2)} %`);
const seconds = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3));

function printQuality(results: readonly Result[]): void {
  const header = [
    'instance',
    'avail.',
    'mand.',
    'TRs',
    'comp.',
    'greedy matched / mand.',
    'matcher matched / mand.',
    'exact matched / mand.',
    'matcher/exact matched',
    'matcher/exact mand.',
    're-solved/exact matched',
    're-solved/exact mand.',
    'greedy/exact matched',
    'greedy/exact mand.',
    'exact s',
    'slowest comp. s',
    'apply p50 ms',
    'apply p99 ms',
  ];
  const rows = results.map((result) => [
    result.name,
    String(result.availabilities),
    String(result.mandatoryShifts),
    String(result.resources),
    String(result.components),
    `${result.greedy.objective.matched} / ${result.greedy.objective.mandatory}`,
    `${result.matcher.objective.matched} / ${result.matcher.objective.mandatory}`,
    `${result.exact.objective.matched} / ${result.exact.objective.mandatory}${result.unproved > 0 ? ` (${result.unproved} unproved)` : ''}`,
    ratio(result.matcher.objective.matched, result.exact.objective.matched),
    ratio(result.matcher.objective.mandatory, result.exact.objective.mandatory),
    ratio(result.resolved.objective.matched, result.exact.objective.matched),
    ratio(result.resolved.objective.mandatory, result.exact.objective.mandatory),
    ratio(result.greedy.objective.matched, result.exact.objective.matched),
    ratio(result.greedy.objective.mandatory, result.exact.objective.mandatory),
    seconds(result.exactSeconds),
    seconds(result.slowest.seconds),
    ms(percentile(result.applyMs, 50)),
    ms(percentile(result.applyMs, 99)),
  ]);
  const title = 'Matching quality: greedy, incremental matcher and adopted re-solve against the exact optimum (matched / mandatory)';
  printMarkdown(title, header, rows);
}

function printDetails(results: readonly Result[]): void {
  const header = [
    'instance',
    'greedy linked / cost',
    'matcher linked / cost',
    'exact linked / cost',
    're-solved linked / cost',
    'matcher combinations the optimum changes',
    'combinations adopted',
    're-solve s',
    'slowest component: shifts, pairs, rows',
    'levels not proved (time limit)',
    `components over the service's ${DEFAULT_EXACT_MAX_NONZEROS.toLocaleString('en-US')} nonzeros`,
    'inputs',
    'stream s',
    'apply max ms',
  ];
  const levels = ({ objective }: Outcome) => `${objective.linked} / ${objective.cost.toFixed(0)}`;
  const rows = results.map((result) => [
    result.name,
    levels(result.greedy),
    levels(result.matcher),
    levels(result.exact),
    levels(result.resolved),
    `${result.changes} of ${result.matcher.objective.matched}`,
    String(result.adopted),
    seconds(result.resolveSeconds),
    `${result.slowest.key}: ${result.slowest.shifts}, ${result.slowest.columns}, ${result.slowest.rows}`,
    result.unprovedLevels.join('; ') || '–',
    String(result.overServiceLimit),
    String(result.applyMs.length),
    seconds(result.streamSeconds),
    ms(result.applyMs[result.applyMs.length - 1] ?? Number.NaN),
  ]);
  const title = 'The lower levels (linked pairs, total cost), the changes the optimum would make, the largest model, the stream';
  printMarkdown(title, header, rows);
}

function printMarkdown(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const lines = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => (line[column] ?? '').length)));
  const format = (line: readonly string[]) =>
    `| ${line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(format(header));
  console.log(`|${widths.map((width, column) => (column === 0 ? ` ${'-'.repeat(width)} ` : ` ${'-'.repeat(width - 1)}: `)).join('|')}|`);
  for (const row of rows) console.log(format(row));
}
