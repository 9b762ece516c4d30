// npm run reliability [-- <scenario> …]: runs every scenario (or the named ones) at full size and prints
// each one's report in Markdown; the scenarios share the whole stack, started as `npm start` does (free
// ports, fresh databases) on the run's servers (MONGO_URL / NATS_URL, else a FerretDB and a nats-server
// started for the run) when the first of them needs it. Exits 1 when a scenario found something. See
// reliability/README.md.
import { cpus } from 'node:os';
import { describeServers, startRunServers } from '@rm/testkit';
import { formatReport, formatSummary, type ScenarioReport } from './lib/report.ts';
import { startSuiteStack, type SuiteStack } from './lib/suite-stack.ts';
import { SCENARIOS } from './scenarios/index.ts';

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in SCENARIOS));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  process.exit(2);
}
const selected = requested.length === 0 ? Object.keys(SCENARIOS) : requested;

const servers = await startRunServers();
const reports: ScenarioReport[] = [];
try {
  const cpu = cpus();
  console.log(`command: npm run reliability${requested.length === 0 ? '' : ` -- ${requested.join(' ')}`}`);
  console.log(`date: ${new Date().toISOString()}`);
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, node ${process.version}`);
  const origin = servers.fromEnvironment ? ' (from MONGO_URL / NATS_URL)' : ' (started for this run)';
  console.log(`servers: ${await describeServers(servers)}${origin}`);
  // started when the first scenario that runs on it asks for it
  let suite: Promise<SuiteStack> | undefined;
  const stopStack = async () => (await suite)?.stop();
  const runStack = () => {
    if (suite === undefined) {
      console.error(`${new Date().toISOString()} starting the stack`);
      suite = startSuiteStack(servers, { echoLogs: process.env.RELIABILITY_LOGS === '1' });
      process.once('SIGINT', () => void stopStack().finally(() => servers.stop()).finally(() => process.exit(130)));
    }
    return suite;
  };
  try {
    for (const name of selected) {
      console.error(`${new Date().toISOString()} ${name}: running`);
      const report = await SCENARIOS[name]!(runStack, 'full');
      reports.push(report);
      console.log(`\n${formatReport(report)}`);
    }
  } finally {
    await stopStack();
  }
  console.log(`\n${formatSummary(reports)}`);
} finally {
  await servers.stop();
}
process.exitCode = reports.some((report) => report.findings.length > 0) ? 1 : 0;
