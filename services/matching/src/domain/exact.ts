import highsModule, { type Highs, type Model } from 'highs';
import type { Combination } from './combination.js';
import type { FrozenCombination } from './deployed.js';
import { buildModel, checkAssignment, existingValues, pairsOf, sizeOf, stagesOf, type BuiltModel, type Stage } from './exact-model.js';
import type { TransportResourceView } from './feasibility.js';
import { components } from './locations.js';
import type { AvailableEmployee } from './snapshot.js';

/*
 * The exact optimum of location components (DESIGN §6), as a yardstick for the incremental matcher
 * and for its background re-solve (src/resolve/), with HiGHS. The model is exact-model.ts's. The
 * objective is lexicographic, solved in stages, each keeping the level it reached while the next ones
 * run (see runStages: LPs first, branch and bound only where a vertex is fractional):
 *   1. mandatory matched, then matched: one stage, weights n+1 and 1 (n shifts: exactly lexicographic);
 *   2. linked pairs;
 *   3. lowest cost (in integer units, less the cheapest pair, over their gcd);
 *   4. fewest changes: most existing combinations kept.
 * A stage that cannot change anything (no linked pair, one cost, nothing existing) is skipped.
 */

export interface ExactOptions {
  /** Current combinations, availability id → transport resource id: the last level keeps most of them. */
  readonly existing?: ReadonlyMap<string, string>;
  /** Frozen combinations: the shifts they hold are left out, and the resources they take are taken for their span. */
  readonly frozen?: readonly FrozenCombination[];
  /** Wall-clock limit of one component's stages together; the best assignment found so far is returned when it is hit. */
  readonly timeLimitSeconds?: number;
  /** A loaded solver to use, instead of the one shared by this module. */
  readonly highs?: Highs;
  /** Loads a solver of its own for this component (a large model leaves the shared Wasm memory grown). */
  readonly fresh?: boolean;
  /** HiGHS's log, line by line (a solver of its own is loaded for it). */
  readonly log?: (line: string) => void;
  /** How a stage's level is kept for the next ones (see runStages): `deferred` unless told; `rows` is the plain way. */
  readonly fixing?: Fixing;
  /**
   * A component whose model has more nonzeros is not solved (`too-large`): HiGHS's WebAssembly memory
   * grows with the model, and one of 1.35 million nonzeros ran out of it (4 GiB) and aborted.
   */
  readonly maxNonzeros?: number;
}

/**
 * `optimal`: proved; `time-limit`: feasible, not proved optimal; `trivial`: decided without the solver;
 * `too-large`: not solved (ExactOptions.maxNonzeros); `failed`: the solver failed twice (solveAll).
 * The last two assign nothing: what the matcher holds stays.
 */
export type ExactStatus = 'optimal' | 'time-limit' | 'trivial' | 'too-large' | 'failed';

export interface ExactSolution {
  /** availability id → transport resource id. */
  readonly assignment: Map<string, string>;
  readonly status: ExactStatus;
  /** Wall-clock seconds: building the model, every stage, reading the solution. */
  readonly seconds: number;
  /** The model's size: pairs (columns), rows (shift rows and clique rows, stage rows not counted), nonzeros. */
  readonly columns: number;
  readonly rows: number;
  readonly nonzeros: number;
  /** The stages the solver ran, with their wall-clock seconds. */
  readonly stages: readonly StageRun[];
  /** The levels proved optimal, in order (`matched`, `linked`, `cost`, `kept`, those that apply): all of them unless out of time. */
  readonly proved: readonly string[];
}

// the package's types describe its CommonJS build; Node and vitest load its ES module, whose default export is the loader itself
const loadHighs: typeof highsModule.default = typeof highsModule === 'function' ? highsModule : highsModule.default;

let shared: Promise<Highs> | undefined;

/** The module's solver, loaded once (the loader is asynchronous; the solves are synchronous and single-threaded). */
export function loadExactSolver(): Promise<Highs> {
  const solver = shared ?? loadHighs();
  shared = solver;
  return solver;
}

/** A solver for one component: with its log, or fresh. */
function ownSolver(options: ExactOptions): Promise<Highs> {
  return loadHighs(options.log === undefined ? {} : { print: options.log, printErr: options.log });
}

/** After a failure: a Wasm instance that ran out of memory, or aborted, is left unusable. */
function replaceSolver(options: ExactOptions): Promise<Highs> {
  if (options.fresh === true || options.log !== undefined) return ownSolver(options);
  shared = undefined;
  return loadExactSolver();
}

/**
 * Solves each component and joins their assignments; with `freshAbove`, a component of more shifts gets a
 * solver of its own. A component the solver fails on (twice, see solveComponent) is reported `failed`
 * and assigns nothing; the others are solved all the same.
 */
export async function solveAll(
  shifts: readonly AvailableEmployee[],
  resources: readonly TransportResourceView[],
  options: ExactOptions & { freshAbove?: number } = {},
): Promise<{ assignment: Map<string, string>; components: (ExactSolution & { key: string; shifts: number; resources: number })[] }> {
  const assignment = new Map<string, string>();
  const solved = [];
  for (const component of components(shifts, resources)) {
    const fresh = options.fresh ?? component.shifts.length > (options.freshAbove ?? Infinity);
    const started = performance.now();
    const solution = await solveComponent(component.shifts, component.resources, { ...options, fresh }).catch(
      () => unsolved('failed', (performance.now() - started) / 1000),
    );
    for (const [availabilityId, resourceId] of solution.assignment) assignment.set(availabilityId, resourceId);
    solved.push({ ...solution, key: component.key, shifts: component.shifts.length, resources: component.resources.length });
  }
  return { assignment, components: solved };
}

/**
 * The lexicographic optimum (DESIGN §6) of one component's shifts on its resources. A solver that
 * fails (a Wasm instance that ran out of memory is left unusable) is replaced and the solve tried once more.
 */
export async function solveComponent(
  shifts: readonly AvailableEmployee[],
  resources: readonly TransportResourceView[],
  options: ExactOptions = {},
): Promise<ExactSolution> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const pairs = pairsOf(shifts, resources, options.frozen);
  if (pairs.columns.length === 0) return unsolved('trivial', seconds());
  const size = sizeOf(pairs);
  // told before the rows are made: those of a model far too large take much of the memory themselves
  if (size.nonzeros > (options.maxNonzeros ?? Infinity)) return unsolved('too-large', seconds(), size);
  const model = buildModel(pairs);
  let highs = options.highs ?? (options.fresh === true || options.log !== undefined ? await ownSolver(options) : await loadExactSolver());
  // a try that fails its check is run again more safely: the last stage it deferred branches instead, then
  // (with none deferred) rows fix the levels
  const start = options.existing === undefined ? undefined : existingValues(model, options.existing);
  const fixing = options.fixing ?? 'deferred';
  let plan: Plan = { defer: fixing === 'deferred' ? 'all' : new Set(), rows: fixing === 'rows' };
  let outcome: StagesOutcome | undefined;
  const tried: StageRun[] = [];
  for (;;) {
    const remaining = options.timeLimitSeconds === undefined ? {} : { timeLimitSeconds: Math.max(1, options.timeLimitSeconds - seconds()) };
    try {
      outcome = runStages(highs, model, { ...options, ...remaining }, plan, start);
    } catch (error) {
      if (options.highs !== undefined) throw error;
      highs = await replaceSolver(options);
      outcome = runStages(highs, model, { ...options, ...remaining }, plan, start);
    }
    tried.push(...outcome.stages);
    if (outcome.verified || plan.rows) break;
    const deferred = outcome.stages.filter((stage) => stage.method === 'deferred').map((stage) => stage.name);
    const last = deferred[deferred.length - 1];
    plan = last === undefined ? { defer: new Set(), rows: true } : { defer: new Set(deferred.slice(0, -1)), rows: false };
  }
  if (outcome?.verified !== true) throw new Error('exact matching: a stage lost the level of an earlier one');
  // out of time, never worse than what exists
  const fallBack = outcome.status === 'time-limit' && start !== undefined && isBetter(stagesOf(model, options.existing), start, outcome.values);
  const values = fallBack && start !== undefined ? start : outcome.values;
  const assignment = new Map<string, string>();
  model.columns.forEach((column, index) => {
    if ((values[index] ?? 0) > 0.5) assignment.set(column.shift.availabilityId, column.resource.id);
  });
  checkAssignment(model, values);
  return {
    assignment,
    status: outcome.status,
    seconds: seconds(),
    ...size,
    stages: tried,
    proved: outcome.proved,
  };
}

/**
 * The service's default ExactOptions.maxNonzeros (MATCHING_EXACT_MAX_NONZEROS): with it the re-solve of a
 * 10,000-availability tenant stayed under 512 MiB of resident memory, the engine's own included (bench/README.md).
 */
export const DEFAULT_EXACT_MAX_NONZEROS = 400_000;

/** A solution that assigns nothing. */
function unsolved(status: ExactStatus, seconds: number, size = { columns: 0, rows: 0, nonzeros: 0 }): ExactSolution {
  return { assignment: new Map(), status, seconds, ...size, stages: [], proved: [] };
}

/** Whether assignment `a` is lexicographically better than `b` over the stages' levels. */
function isBetter(stages: readonly Stage[], a: Float64Array, b: Float64Array): boolean {
  for (const stage of stages) {
    const difference = levelOf(stage.costs, a) - levelOf(stage.costs, b);
    if (Math.abs(difference) >= 0.5) return stage.maximize ? difference > 0 : difference < 0;
  }
  return false;
}

/** The assignment as the matcher's combinations. */
export function combinationsOf(assignment: ReadonlyMap<string, string>, shifts: readonly AvailableEmployee[]): Combination[] {
  const employeeOf = new Map(shifts.map((shift) => [shift.availabilityId, shift.employeeId]));
  return [...assignment].map(([availabilityId, transportResourceId]) => ({
    availabilityId,
    employeeId: employeeOf.get(availabilityId) ?? '',
    transportResourceId,
  }));
}

/**
 * A stage as it ran: its relaxation was integral (`lp`); it needed branch and bound (`mip`); or, where
 * the try let it defer, its fractional vertex's optimum was taken as the level for the stages after it.
 */
export interface StageRun {
  readonly name: string;
  readonly seconds: number;
  readonly method: 'lp' | 'mip' | 'deferred';
}

interface StagesOutcome {
  values: Float64Array;
  status: ExactStatus;
  stages: StageRun[];
  /** False when a level does not hold at the end: a deferred LP optimum that no assignment reaches, or a face fixed too loosely. */
  verified: boolean;
  proved: string[];
}

/** How a stage's level is kept while the next ones run (see runStages). */
export type Fixing = 'deferred' | 'faces' | 'rows';

/** One try: the stages that may defer (`all`, or by name), or rows for every level. */
interface Plan {
  readonly defer: 'all' | ReadonlySet<string>;
  readonly rows: boolean;
}

/**
 * Runs the stages on one model; throws when the solver fails. Each stage solves the relaxation first
 * (the model has no integrality): a vertex that is integral is the stage's optimum, and most are (the
 * rows of one resource form an interval matrix); only a fractional one goes to branch and bound, whose
 * set-up (probing, clique table) costs many times the root LP on large models.
 *
 * The level a stage reached is then kept for the next ones. When the relaxation's optimum is that level
 * (an integer optimum on the LP's optimal face), every optimal assignment lies on that face: with
 * `faces`, the columns with a nonzero reduced cost are fixed where they are and the rows with a nonzero
 * dual made tight, which also shrinks the next LPs. Otherwise (and with `rows`) a row fixes the level:
 * dense, which slows the LPs after it. A stage the plan lets defer goes to no branch and bound either
 * when its vertex is fractional (and its LP optimum a whole number): its face is fixed as if an integer
 * assignment attained that optimum, and only the last stage branches, over all the faces at once; an
 * assignment found there attains every stage's LP optimum, so it is the lexicographic optimum. When
 * there is none, `verified` is false (it says whether every level holds at the end) and the caller
 * tries again with the last deferred stage branching.
 */
function runStages(highs: Highs, built: BuiltModel, options: ExactOptions, plan: Plan, start: Float64Array | undefined): StagesOutcome {
  const n = built.columnCount;
  const { maximize, minimize } = highs.constants.objectiveSense;
  const statuses = highs.constants.modelStatus;
  if (highs.constants.modelStatus.optimal !== OPTIMAL) throw new Error('exact matching: unexpected HiGHS status codes');
  const model = highs.createModel({
    numCols: n,
    numRows: built.rowCount,
    sense: maximize,
    colCost: new Float64Array(n),
    colLower: new Float64Array(n),
    colUpper: new Float64Array(n).fill(1),
    rowLower: built.rowLower,
    rowUpper: built.rowUpper,
    matrix: { format: 'csr', numRows: built.rowCount, numCols: n, starts: built.starts, indices: built.indices, values: built.values },
  });
  const bounds = { lower: [...built.rowLower], upper: [...built.rowUpper] };
  const all = { kind: 'range', from: 0, to: n - 1 } as const;
  try {
    // every stage's objective is integer-valued: a gap below 1 proves the optimum
    model.options.set({ output_flag: options.log !== undefined, mip_rel_gap: 0, mip_abs_gap: 0.5 });
    const deadline = options.timeLimitSeconds === undefined ? undefined : performance.now() + options.timeLimitSeconds * 1000;
    let values: Float64Array = new Float64Array(n);
    let status: ExactStatus = 'optimal';
    const ran: StageRun[] = [];
    /** The level each stage reached; `exact` when it must be met to the unit, not only within half a unit. */
    const reached: { stage: Stage; level: number; exact: boolean }[] = [];
    const stages = stagesOf(built, options.existing);
    let denseRows = false;
    let faceFixed = false;
    for (const [position, stage] of stages.entries()) {
      const last = position === stages.length - 1;
      model.changeObjectiveSense(stage.maximize ? maximize : minimize);
      model.changeColsCost(all, stage.costs);
      const stageStart = performance.now();
      // presolve takes minutes over the dense rows of fixed levels, where the solve takes a second: none once there is one
      model.options.set('presolve', denseRows ? 'off' : 'on');
      // after a face is fixed, the old basis (which keeps presolve away) left the dual simplex stalling for
      // minutes over the new bounds; without it, presolve takes the fixed columns and tight rows out
      if (faceFixed && !denseRows) model.clearSolver();
      faceFixed = false;
      // the time left, on the model's own clock
      if (deadline !== undefined) {
        model.zeroAllClocks();
        model.options.set('time_limit', Math.max(0.1, (deadline - performance.now()) / 1000));
      }
      const relaxed = solveRelaxation(model);
      const { lp } = relaxed;
      let { modelStatus } = relaxed;
      let method: StageRun['method'] = 'lp';
      if (lp !== undefined && isIntegral(lp.solution.colValue)) values = rounded(lp.solution.colValue);
      // a fractional level is reached by no assignment (levels are integers): that stage branches at once
      else if (lp !== undefined && !last && isWhole(lp.level) && (plan.defer === 'all' || plan.defer.has(stage.name))) method = 'deferred';
      else if (modelStatus !== statuses.timeLimit) {
        method = 'mip';
        model.changeColsIntegrality(all, new Int32Array(n).fill(highs.constants.variableType.integer));
        // the previous stage's optimum satisfies every row so far: a warm start; else (first, or on a deferred
        // stage's face) the existing combinations, which HiGHS checks and ignores where they break a row
        const warm = position > 0 && !reached.some((one) => one.exact) ? values : start;
        if (warm !== undefined) model.setSolution({ colValue: warm });
        modelStatus = model.run().modelStatus;
        const found = model.info.get('primal_solution_status') === highs.constants.solutionStatus.feasible;
        const usable = modelStatus === statuses.optimal || modelStatus === statuses.timeLimit;
        if (usable && found) values = rounded(model.getSolution().colValue);
        model.clearIntegrality();
      }
      ran.push({ name: stage.name, seconds: (performance.now() - stageStart) / 1000, method });
      if (modelStatus !== statuses.optimal) {
        // out of time: the stage's best so far (kept above), else the previous stage's optimum (no pair at all is feasible too)
        if (modelStatus === statuses.timeLimit) {
          status = 'time-limit';
          break;
        }
        // the faces of deferred stages hold no integer assignment: their LP optima are not integer ones
        if (reached.some((one) => one.exact)) return { values, status, stages: ran, verified: false, proved: [] };
        throw new Error(`exact matching: stage ${stage.name} ended with model status ${modelStatus}`);
      }
      if (method === 'deferred' && lp !== undefined) {
        // assumed attained by an integer assignment; the last stage's assignment is checked against it
        reached.push({ stage, level: lp.level, exact: true });
        fixFace(model, lp.solution, bounds, stage);
        faceFixed = true;
        continue;
      }
      const level = levelOf(stage.costs, values);
      reached.push({ stage, level, exact: false });
      if (last) break;
      // the levels are integers: an LP optimum that close to one is that one
      if (!plan.rows && lp !== undefined && Math.abs(lp.level - level) < 1e-4) {
        fixFace(model, lp.solution, bounds, stage);
        faceFixed = true;
      } else denseRows = addLevelRow(model, stage, level, bounds, highs.infinity) || denseRows;
    }
    const attained = ({ stage, level, exact }: (typeof reached)[number]) =>
      Math.abs(levelOf(stage.costs, values) - level) < (exact ? 1e-4 : 0.5);
    const verified = status !== 'optimal' || reached.every(attained);
    // out of time, the levels proved are those the assignment reaches, in order (a deferred one only when it reaches its LP bound)
    const provedCount = reached.findIndex((one) => !attained(one));
    const proved = reached.slice(0, provedCount === -1 ? reached.length : provedCount).map(({ stage }) => stage.name);
    return { values, status, stages: ran, verified, proved };
  } finally {
    model.dispose();
  }
}

interface RowBounds {
  lower: number[];
  upper: number[];
}

type LpSolution = Pick<ReturnType<Model['getSolution']>, 'colValue' | 'colDual' | 'rowValue' | 'rowDual'>;

interface Relaxed {
  modelStatus: number;
  lp?: { solution: LpSolution; level: number };
}

/** HiGHS's model status for a proved optimum (`highs.constants.modelStatus.optimal`). */
const OPTIMAL = 7;

function solveRelaxation(model: Model): Relaxed {
  const { modelStatus } = model.run();
  if (modelStatus !== OPTIMAL) return { modelStatus };
  return { modelStatus, lp: { solution: model.getSolution(), level: model.getObjectiveValue() } };
}

/**
 * Keeps the model on the optimal face of the stage's LP: by complementary slackness with the LP's dual
 * solution, an assignment is optimal exactly when every column with a nonzero reduced cost stays at its
 * bound and every row with a nonzero dual stays tight. Reduced costs and duals within the solver's
 * tolerance count as zero: a column left free that way could let a later stage lose this level, which
 * the final check catches (the stages then run again with rows).
 */
function fixFace(model: Model, solution: LpSolution, bounds: RowBounds, stage: Stage): void {
  const scale = stage.costs.reduce((most, cost) => Math.max(most, Math.abs(cost)), 1);
  const tolerance = 1e-6 * scale;
  const columns: number[] = [];
  const at: number[] = [];
  solution.colDual.forEach((reduced, index) => {
    if (Math.abs(reduced) <= tolerance) return;
    columns.push(index);
    at.push(Math.round(solution.colValue[index] ?? 0));
  });
  if (columns.length > 0) {
    model.changeColsBounds({ kind: 'set', indices: Int32Array.from(columns) }, Float64Array.from(at), Float64Array.from(at));
  }
  solution.rowDual.forEach((dual, row) => {
    if (Math.abs(dual) <= tolerance) return;
    const activity = solution.rowValue[row] ?? 0;
    const lower = bounds.lower[row] ?? 0;
    const upper = bounds.upper[row] ?? 0;
    const bound = Math.abs(activity - upper) <= Math.abs(activity - lower) ? upper : lower;
    bounds.lower[row] = bound;
    bounds.upper[row] = bound;
    model.changeRowBounds(row, bound, bound);
  });
}

/** Fixes the level reached with a row over the stage's objective: an integer, so half a unit of slack is exact. */
function addLevelRow(model: Model, stage: Stage, level: number, bounds: RowBounds, infinity: number): boolean {
  const entries: number[] = [];
  const weights: number[] = [];
  stage.costs.forEach((cost, index) => {
    if (cost === 0) return;
    entries.push(index);
    weights.push(cost);
  });
  if (entries.length === 0) return false;
  const [lower, upper] = stage.maximize ? [level - 0.5, infinity] : [-infinity, level + 0.5];
  model.addRow(lower, upper, { indices: Int32Array.from(entries), values: Float64Array.from(weights) });
  bounds.lower.push(lower);
  bounds.upper.push(upper);
  return true;
}

function levelOf(costs: Float64Array, values: Float64Array): number {
  let level = 0;
  costs.forEach((cost, index) => {
    level += cost * (values[index] ?? 0);
  });
  return level;
}

function isWhole(level: number): boolean {
  return Math.abs(level - Math.round(level)) < 1e-6 + 1e-9 * Math.abs(level);
}

function isIntegral(values: Float64Array): boolean {
  for (const value of values) if (Math.abs(value - Math.round(value)) > 1e-7) return false;
  return true;
}

function rounded(colValue: Float64Array): Float64Array {
  return Float64Array.from(colValue, (value) => (value > 0.5 ? 1 : 0));
}
