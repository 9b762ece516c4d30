import { holds, type FrozenCombination } from './deployed.js';
import { canCombine, combinationCost, type TransportResourceView } from './feasibility.js';
import { overlaps } from './interval.js';
import type { AvailableEmployee } from './snapshot.js';

/*
 * The model of one location component that exact.ts solves (DESIGN §6). Shifts are fixed jobs,
 * transport resources machines: a binary x[s,r] for each pair that may be combined; each shift on at
 * most one resource; on each resource the windows of its eligible shifts form an interval graph, and
 * one row per maximal clique (a sweep over the windows) keeps its shifts apart, which is exact for
 * interval graphs. The objective's stages, in order: mandatory matched then matched (weights n+1 and 1),
 * linked pairs, lowest cost, most existing combinations kept; a stage that cannot change anything is
 * left out.
 */

export interface Column {
  readonly shift: AvailableEmployee;
  readonly resource: TransportResourceView;
}

export interface BuiltModel {
  /** The pairs: the model's first columns, binary. */
  readonly columns: readonly Column[];
  readonly columnCount: number;
  readonly shiftCount: number;
  readonly rowCount: number;
  readonly rowLower: Float64Array;
  readonly rowUpper: Float64Array;
  /** The rows in CSR form. */
  readonly starts: Int32Array;
  readonly indices: Int32Array;
  readonly values: Float64Array;
}

/** The pairs of a component (the model's columns), by shift and by resource. */
export interface Pairs {
  readonly columns: readonly Column[];
  /** For each shift with a pair, the columns of its pairs. */
  readonly columnsOfShift: readonly number[][];
  readonly columnsOnResource: ReadonlyMap<string, number[]>;
}

export function pairsOf(shifts: readonly AvailableEmployee[], resources: readonly TransportResourceView[], frozen: readonly FrozenCombination[] = []): Pairs {
  const blocked = (shift: AvailableEmployee, resource: TransportResourceView) =>
    frozen.some((one) => one.transportResourceIds.includes(resource.id) && overlaps(one.span, shift.window));
  const columns: Column[] = [];
  const columnsOfShift: number[][] = [];
  const columnsOnResource = new Map<string, number[]>();
  for (const shift of shifts) {
    if (frozen.some((one) => holds(one, shift))) continue;
    const own: number[] = [];
    for (const resource of resources) {
      if (!canCombine(shift, resource) || blocked(shift, resource)) continue;
      own.push(columns.length);
      const onResource = columnsOnResource.get(resource.id) ?? [];
      onResource.push(columns.length);
      columnsOnResource.set(resource.id, onResource);
      columns.push({ shift, resource });
    }
    if (own.length > 0) columnsOfShift.push(own);
  }
  return { columns, columnsOfShift, columnsOnResource };
}

/** Each resource's columns with their windows, for the clique sweep. */
function windowsOn(pairs: Pairs, onResource: readonly number[]): { index: number; window: { start: number; end: number } }[] {
  return onResource.map((index) => ({ index, window: (pairs.columns[index] as Column).shift.window }));
}

/** The rows and nonzeros buildModel would make, counted without making them: what decides that a model is too large. */
export function sizeOf(pairs: Pairs): { columns: number; rows: number; nonzeros: number } {
  let rows = 0;
  let nonzeros = 0;
  const count = (size: number) => {
    if (size < 2) return;
    rows += 1;
    nonzeros += size;
  };
  for (const own of pairs.columnsOfShift) count(own.length);
  for (const onResource of pairs.columnsOnResource.values()) forEachMaximalClique(windowsOn(pairs, onResource), (clique) => count(clique.size));
  return { columns: pairs.columns.length, rows, nonzeros };
}

/**
 * The rows: each shift on at most one resource, and on each resource at most one shift in each maximal
 * clique of its windows (exact for interval graphs). Written as differences of consecutive cliques (a
 * network matrix, a third of the nonzeros), the same LP took the dual simplex fifty times the iterations.
 */
export function buildModel(pairs: Pairs): BuiltModel {
  const { columns, columnsOfShift, columnsOnResource } = pairs;
  const rows: number[][] = columnsOfShift.filter((row) => row.length > 1);
  for (const onResource of columnsOnResource.values()) {
    for (const clique of maximalCliques(windowsOn(pairs, onResource))) {
      if (clique.length > 1) rows.push(clique);
    }
  }
  const starts = new Int32Array(rows.length + 1);
  let nonzeros = 0;
  rows.forEach((row, index) => {
    nonzeros += row.length;
    starts[index + 1] = nonzeros;
  });
  const indices = new Int32Array(nonzeros);
  let at = 0;
  for (const row of rows) for (const index of row.sort((a, b) => a - b)) indices[at++] = index;
  return {
    columns,
    columnCount: columns.length,
    shiftCount: columnsOfShift.length,
    rowCount: rows.length,
    rowLower: new Float64Array(rows.length).fill(-Infinity),
    rowUpper: new Float64Array(rows.length).fill(1),
    starts,
    indices,
    values: new Float64Array(nonzeros).fill(1),
  };
}

/**
 * The maximal cliques of an interval graph of half-open windows: sweeping the ends and starts in time
 * order (ends first at the same instant: windows that only touch do not overlap), the windows open
 * when the first end follows a start form one.
 */
export function maximalCliques(items: readonly { index: number; window: { start: number; end: number } }[]): number[][] {
  const cliques: number[][] = [];
  forEachMaximalClique(items, (clique) => cliques.push([...clique]));
  return cliques;
}

/** The sweep of maximalCliques, showing each clique as the set of windows open at that moment. */
function forEachMaximalClique(items: readonly { index: number; window: { start: number; end: number } }[], visit: (clique: ReadonlySet<number>) => void): void {
  const events: [time: number, kind: 0 | 1, index: number][] = [];
  for (const { index, window } of items) {
    if (window.start >= window.end) continue;
    events.push([window.start, 1, index], [window.end, 0, index]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const open = new Set<number>();
  let afterStart = false;
  for (const [, kind, index] of events) {
    if (kind === 1) {
      open.add(index);
      afterStart = true;
      continue;
    }
    if (afterStart) visit(open);
    afterStart = false;
    open.delete(index);
  }
}

export interface Stage {
  readonly name: string;
  readonly maximize: boolean;
  readonly costs: Float64Array;
}

export function stagesOf(built: BuiltModel, existing: ReadonlyMap<string, string> | undefined): Stage[] {
  const { columns, shiftCount } = built;
  const n = built.columnCount;
  const stages: Stage[] = [];
  const counts = new Float64Array(n);
  columns.forEach(({ shift }, index) => {
    counts[index] = shift.mandatory ? shiftCount + 1 : 1;
  });
  stages.push({ name: 'matched', maximize: true, costs: counts });
  const linked = new Float64Array(n);
  columns.forEach(({ shift, resource }, index) => {
    linked[index] = shift.linkedTransportResource === resource.id ? 1 : 0;
  });
  if (linked.some((value) => value > 0)) stages.push({ name: 'linked', maximize: true, costs: linked });
  const costs = integerCosts(columns.map(({ resource }) => combinationCost(resource)), shiftCount);
  if (costs !== undefined) {
    const padded = new Float64Array(n);
    padded.set(costs);
    stages.push({ name: 'cost', maximize: false, costs: padded });
  }
  if (existing !== undefined) {
    const kept = new Float64Array(n);
    columns.forEach(({ shift, resource }, index) => {
      kept[index] = existing.get(shift.availabilityId) === resource.id ? 1 : 0;
    });
    if (kept.some((value) => value > 0)) stages.push({ name: 'kept', maximize: true, costs: kept });
  }
  return stages;
}

/**
 * Costs as small integers with the same order of sums over a fixed number of pairs (the matched count
 * is fixed by then): in units of 10⁻⁴ (costs are rounded to 4 decimals), less the cheapest, over
 * their gcd. `undefined` when every pair costs the same. Costs too large to sum exactly are rounded.
 */
function integerCosts(costs: readonly number[], shiftCount: number): Float64Array | undefined {
  const units = costs.map((cost) => Math.round(cost * 1e4));
  const cheapest = units.reduce((least, unit) => Math.min(least, unit), Infinity);
  let divisor = 0;
  for (const unit of units) divisor = gcd(divisor, unit - cheapest);
  if (divisor === 0) return undefined;
  const scaled = units.map((unit) => (unit - cheapest) / divisor);
  const largest = scaled.reduce((most, value) => Math.max(most, value), 0);
  // keep every sum an exact integer in a double
  const shrink = largest * shiftCount > 2 ** 50 ? (largest * shiftCount) / 2 ** 50 : 1;
  return Float64Array.from(scaled, (value) => Math.round(value / shrink));
}

function gcd(a: number, b: number): number {
  let [x, y] = [Math.abs(a), Math.abs(b)];
  while (y > 0) [x, y] = [y, x % y];
  return x;
}

/** The existing combinations as the model's columns, when they are feasible in it (pairs that are not columns dropped). */
export function existingValues(built: BuiltModel, existing: ReadonlyMap<string, string>): Float64Array | undefined {
  const values = new Float64Array(built.columnCount);
  built.columns.forEach(({ shift, resource }, column) => {
    if (existing.get(shift.availabilityId) === resource.id) values[column] = 1;
  });
  for (let row = 0; row < built.rowCount; row += 1) {
    let sum = 0;
    for (let at = built.starts[row] as number; at < (built.starts[row + 1] as number); at += 1) {
      sum += values[built.indices[at] as number] ?? 0;
    }
    if (sum > 1) return undefined;
  }
  return values;
}

/** An assignment that breaks a rule would be a solver tolerance gone wrong: better to fail than to report it. */
export function checkAssignment(model: BuiltModel, values: Float64Array): void {
  const seen = new Set<string>();
  const onResource = new Map<string, AvailableEmployee[]>();
  model.columns.forEach(({ shift, resource }, index) => {
    if ((values[index] ?? 0) < 0.5) return;
    if (seen.has(shift.availabilityId)) throw new Error(`exact matching: ${shift.availabilityId} is matched twice`);
    seen.add(shift.availabilityId);
    onResource.set(resource.id, [...(onResource.get(resource.id) ?? []), shift]);
  });
  for (const [resourceId, placed] of onResource) {
    placed.sort((a, b) => a.window.start - b.window.start);
    placed.forEach((shift, index) => {
      const next = placed[index + 1];
      if (next !== undefined && overlaps(shift.window, next.window)) {
        throw new Error(`exact matching: ${shift.availabilityId} and ${next.availabilityId} overlap on ${resourceId}`);
      }
    });
  }
}
