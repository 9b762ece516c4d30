/** A scenario's full run (`npm run reliability`) or its short version (the tests). */
export type Size = 'full' | 'short';

/** What a scenario found: one request or outcome that breaks a rule, with enough to reproduce it. */
export interface Finding {
  rule: string;
  /** `PUT /resource-management/v1/employee/x` and what was special about the request. */
  request: string;
  status?: number;
  excerpt: string;
}

/** One scenario's report: what it did, its counts as table rows, and what it found. */
export interface ScenarioReport {
  name: string;
  did: string;
  rows: [string, string | number][];
  findings: Finding[];
  seconds: number;
}

/** Counts responses by status: 2xx, each 4xx status, 5xx, and requests that got no answer. */
export class StatusTally {
  requests = 0;
  noAnswer = 0;
  readonly byStatus = new Map<number, number>();

  record(status: number | undefined): void {
    this.requests += 1;
    if (status === undefined) this.noAnswer += 1;
    else this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  count(test: (status: number) => boolean): number {
    return [...this.byStatus].filter(([status]) => test(status)).reduce((sum, [, count]) => sum + count, 0);
  }

  rows(): [string, string | number][] {
    const fourXx = [...this.byStatus].filter(([status]) => status >= 400 && status < 500).sort(([a], [b]) => a - b);
    return [
      ['requests', this.requests],
      ['2xx', this.count((status) => status < 300)],
      ['4xx by status', fourXx.map(([status, count]) => `${status}: ${count}`).join(', ') || '0'],
      ['5xx', this.count((status) => status >= 500)],
      ['no answer (connection closed)', this.noAnswer],
    ];
  }
}

const SHOWN_FINDINGS = 5;

/** The report as Markdown: a heading, what the scenario did, a table of its counts, its first findings. */
export function formatReport(report: ScenarioReport): string {
  const rows: [string, string | number][] = [
    ...report.rows,
    ['findings', report.findings.length],
    ['time', `${report.seconds.toFixed(1)} s`],
  ];
  const lines = [`## ${report.name}`, '', report.did, '', '| measure | value |', '|---|---|'];
  for (const [measure, value] of rows) {
    lines.push(`| ${measure} | ${escapeCell(typeof value === 'number' ? value.toLocaleString('en') : value)} |`);
  }
  for (const finding of report.findings.slice(0, SHOWN_FINDINGS)) {
    lines.push('', `- ${finding.rule}: \`${finding.request}\` → ${finding.status ?? 'no answer'}: ${finding.excerpt}`);
  }
  if (report.findings.length > SHOWN_FINDINGS) lines.push(`- … and ${report.findings.length - SHOWN_FINDINGS} more`);
  return lines.join('\n');
}

/** One line per scenario, for the summary at the end of a run. */
export function formatSummary(reports: readonly ScenarioReport[]): string {
  const lines = ['| scenario | findings | time |', '|---|---:|---:|'];
  for (const report of reports) lines.push(`| ${report.name} | ${report.findings.length} | ${report.seconds.toFixed(1)} s |`);
  return lines.join('\n');
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** At most `length` characters of a response body, on one line. */
export function excerpt(text: string, length = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length)}…` : line;
}
