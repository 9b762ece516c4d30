import type { SeriesResult } from './series.ts';
import { percentile, sortedAscending } from './stats.ts';

/** A table row; a row with a baseline also shows how it compares with it. ops/s counts successes. */
export interface ReportRow {
  result: SeriesResult;
  baseline?: SeriesResult;
}

const HEADER = ['case', 'in flight', 'ops', 'failed', 'total ms', 'ops/s', 'p50 ms', 'p99 ms', 'p50 vs base', 'ops/s vs base', 'RSS Δ', 'heap Δ'];

/** Prints a Markdown table, so that a run's output can go into bench/README.md as it is. */
export function printTable(title: string, rows: ReportRow[]): void {
  printMarkdown(title, HEADER, rows.map(cells));
  for (const { result } of rows) {
    for (const [message, count] of result.errors) console.log(`\n${result.label} (${result.concurrency} in flight), ${count}× ${message}`);
  }
}

/**
 * Prints how each case's latency grows with the data, from the same rows measured at each size
 * (`bySize[i]`: the rows at `sizes[i]`, smallest first): p50 / p99 at each size with the p50 against
 * the baseline's at that size, then the largest size's p50 and p99 over the smallest's.
 */
export function printGrowthTable(title: string, sizes: readonly number[], bySize: ReportRow[][]): void {
  const count = (size: number | undefined) => (size ?? 0).toLocaleString('en-US');
  const header = ['case', ...sizes.map(count), `${count(sizes.at(-1))} ÷ ${count(sizes[0])}`];
  const cases = (bySize[0] ?? []).map((_, row) => bySize.map((rows) => rows[row] as ReportRow));
  printMarkdown(title, header, cases.map(growthCells));
  for (const [index, rows] of bySize.entries()) {
    for (const { result } of rows) for (const [message, count] of result.errors) console.log(`\n${result.label} at ${sizes[index]}, ${count}× ${message}`);
  }
}

/** One case at each size. */
function growthCells(atSizes: ReportRow[]): string[] {
  const sizeCells = atSizes.map(({ result, baseline }) => {
    const { p50, p99 } = summarize(result);
    const failed = result.ops - result.latenciesMs.length;
    return (
      `${fixed(p50)} / ${fixed(p99)}` +
      (baseline === undefined ? '' : ` (${(p50 / summarize(baseline).p50).toFixed(2)}×)`) +
      (failed > 0 ? `, ${failed} failed` : '')
    );
  });
  const first = summarize((atSizes[0] as ReportRow).result);
  const last = summarize((atSizes.at(-1) as ReportRow).result);
  return [(atSizes[0] as ReportRow).result.label, ...sizeCells, `${(last.p50 / first.p50).toFixed(2)}× / ${(last.p99 / first.p99).toFixed(2)}×`];
}

/** The first column left-aligned, the others right-aligned. */
export function printMarkdown(title: string, header: string[], rows: string[][]): void {
  const lines = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => (line[column] ?? '').length)));
  const format = (line: string[]) =>
    `| ${line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(format(header));
  console.log(`|${widths.map((width, column) => (column === 0 ? ` ${'-'.repeat(width)} ` : ` ${'-'.repeat(width - 1)}: `)).join('|')}|`);
  for (const line of rows) console.log(format(line));
}

function cells({ result, baseline }: ReportRow): string[] {
  const summary = summarize(result);
  const base = baseline === undefined ? undefined : summarize(baseline);
  return [
    result.label,
    String(result.concurrency),
    String(result.ops),
    String(result.ops - result.latenciesMs.length),
    fixed(result.totalMs),
    fixed(summary.opsPerSecond),
    fixed(summary.p50),
    fixed(summary.p99),
    base === undefined ? '' : `${(summary.p50 / base.p50).toFixed(2)}×`,
    base === undefined ? '' : `${(summary.opsPerSecond / base.opsPerSecond).toFixed(2)}×`,
    megabytes(result.memory?.rssBytes),
    megabytes(result.memory?.heapBytes),
  ];
}

function summarize(result: SeriesResult): { opsPerSecond: number; p50: number; p99: number } {
  const sorted = sortedAscending(result.latenciesMs);
  return {
    opsPerSecond: result.latenciesMs.length / (result.totalMs / 1000),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

/** Two decimals below 10, one below 100, none above. */
function fixed(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return value.toFixed(digits);
}

function megabytes(bytes: number | undefined): string {
  if (bytes === undefined) return '–';
  const value = bytes / 1024 ** 2;
  return `${value >= 0 ? '+' : ''}${value.toFixed(1)} MB`;
}
