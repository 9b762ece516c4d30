// npm run bench [-- <name> …]: runs the benches (all, or the named ones) against the run's servers
// (MONGO_URL / NATS_URL when set, else a FerretDB and a nats-server started for the run) and prints
// one Markdown table per bench, each case next to its baseline. See bench/README.md.
import { cpus } from 'node:os';
import { describeServers, startRunServers } from '@rm/testkit';
import { availabilityBench } from './availability.bench.ts';
import { availabilityGenerationBench } from './availability-generation.bench.ts';
import { boardBench } from './board.bench.ts';
import { changeFeedBench } from './change-feed.bench.ts';
import { deploymentsBench } from './deployments.bench.ts';
import { eventPathBench } from './event-path.bench.ts';
import { gatewayBench } from './gateway.bench.ts';
import { growthBench } from './growth.bench.ts';
import { httpBench } from './http.bench.ts';
import { importBench } from './import.bench.ts';
import { requestSizeBench } from './request-size.bench.ts';
import { openBenchContext, type Bench } from './lib/bench.ts';
import { listAnswerBench } from './list-answer.bench.ts';
import { loadBench } from './load.bench.ts';
import { msSince } from './lib/stats.ts';
import { matchingQualityBench } from './matching-quality.bench.ts';
import { matchingServiceBench } from './matching-service.bench.ts';
import { webhooksBench } from './webhooks.bench.ts';
import { writePathBench } from './write-path.bench.ts';

const BENCHES: Bench[] = [writePathBench, eventPathBench, httpBench, requestSizeBench, listAnswerBench, availabilityBench, gatewayBench, deploymentsBench, matchingQualityBench, matchingServiceBench, growthBench, loadBench, changeFeedBench, importBench, webhooksBench, availabilityGenerationBench, boardBench];

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !BENCHES.some((bench) => bench.name === name));
if (unknown.length > 0) {
  console.error(`unknown bench ${unknown.join(', ')}; known: ${BENCHES.map((bench) => bench.name).join(', ')}`);
  process.exit(2);
}
const selected = requested.length === 0 ? BENCHES : BENCHES.filter((bench) => requested.includes(bench.name));

const servers = await startRunServers();
process.once('SIGINT', () => void servers.stop().finally(() => process.exit(130)));
// testkit's helpers (createTestServiceEnv) find the run's servers here, as in a test run
process.env.MONGO_URL = servers.mongoUrl;
process.env.NATS_URL = servers.natsUrl;
try {
  const cpu = cpus();
  console.log(`command: node bench/run.ts ${requested.join(' ')}`.trimEnd());
  console.log(`date: ${new Date().toISOString()}`);
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, node ${process.version}`);
  console.log(`servers: ${await describeServers(servers)}${servers.fromEnvironment ? ' (from MONGO_URL / NATS_URL)' : ' (started for this run)'}`);
  const context = await openBenchContext(servers, process.env.BENCH_LOG_LEVEL);
  try {
    for (const bench of selected) {
      const start = process.hrtime.bigint();
      console.log(`\n## ${bench.name}`);
      await bench.run(context);
      console.log(`\n(${bench.name} took ${(msSince(start) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await context.close();
  }
} finally {
  await servers.stop();
}
