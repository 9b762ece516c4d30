// Sums the JSON reports that each package's vitest run leaves (see @rm/testkit/vitest-config) into
// one closing line, "tests: N passed, N failed, N skipped", and names packages with tests that left no
// report.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

const root = join(import.meta.dirname, '..');
const workspaces = [
  ...['packages', 'services'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, 'package.json')))
      .map((entry) => join(group, entry.name)),
  ),
  'reliability',
].filter(hasTests);

/** A workspace without a test script (@rm/nats-access, tested where it is used) leaves no report. */
function hasTests(workspace: string): boolean {
  const manifest = JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return manifest.scripts?.test !== undefined;
}

let passed = 0;
let failed = 0;
let skipped = 0;
const missing: string[] = [];
for (const workspace of workspaces) {
  const report = join(root, workspace, '.test-results', 'vitest.json');
  if (!existsSync(report)) {
    missing.push(workspace);
    continue;
  }
  const counts = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
  passed += counts.numPassedTests;
  failed += counts.numFailedTests;
  skipped += counts.numPendingTests + counts.numTodoTests;
}

if (missing.length > 0) console.log(`no test report from: ${missing.join(', ')}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || missing.length > 0 ? 1 : 0;
