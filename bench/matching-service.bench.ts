// Matching service: a generated tenant streamed in as its owners' events, through the platform's event
// path, into the matching service running as its own process (dist/main.js): how long until it has
// converged after the bulk import, how long one more event takes to be decided and written, how long
// a fresh engine takes to replay the streams into an empty database, and the engine's resident memory,
// at its peak over the whole run: the import, and the exact re-solve that follows it.
// The baseline is the same instance applied in-process (TenantMatching, no database, no broker).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, type EntityEvents, type EventEnvelope } from '@rm/contracts';
import { findFreePort, startNatsServer, testNatsAdmin, type TestServiceEnv } from '@rm/testkit';
import { type Input, INPUT_EVENTS, INPUTS_STREAM, TenantMatching } from '@rm/matching/testing';
import type { Bench } from './lib/bench.ts';
import { generateInstance, parseSize, type MatchingInstance } from './lib/matching-instances.ts';
import { benchServiceEnv } from './lib/service-env.ts';
import { POD_NODE_OPTIONS } from './lib/pod-node-options.ts';
import { msSince, percentile, sortedAscending } from './lib/stats.ts';

const TENANT = 'bench-matching';
const PARTITIONS = 4;
const LATENCY_EVENTS = 200;
const PUBLISH_IN_FLIGHT = 256;
const root = join(import.meta.dirname, '..');

export const matchingServiceBench: Bench = {
  name: 'matching-service',
  async run(context) {
    const size = parseSize(process.env.BENCH_MATCHING_SERVICE_SIZE ?? 'tight:10000#1');
    const instance = generateInstance(size);
    console.log(`\ninstance ${instance.name}: ${instance.inputs.length} input events, ${instance.snapshots.length} availabilities, ` +
      `${instance.resources.length} transport resources, ${instance.counts.employees} employees, one tenant`);
    // the tenant is kept until after the measure, so that the heap it holds counts
    const { result: applied, memory } = await context.probe.around(async () => applyInProcess(instance));
    const inProcess = { ...applied, heapBytes: memory.heapBytes };

    // a nats-server of its own: the engine copies every owner's stream, and nothing else should be in them
    const nats = await startNatsServer();
    const client = await connect({ servers: nats.url, ...testNatsAdmin() });
    const env = await benchServiceEnv('bench_matching', { NATS_URL: nats.url });
    const replayEnv = await benchServiceEnv('bench_matching_replay', { NATS_URL: nats.url });
    const engines: Engine[] = [];
    try {
      const js = jetstream(client);
      const jsm = await jetstreamManager(client);
      const live = await startEngine(env);
      engines.push(live);
      await waitForDurables(jsm, env);
      const atRest = memoryOf(live.child);

      const importStart = process.hrtime.bigint();
      await publishAll(js, instance.inputs);
      const published = msSince(importStart);
      await converged(jsm, env, instance.inputs.length);
      const imported = msSince(importStart);
      console.log(`imported and converged in ${(imported / 1000).toFixed(1)} s; now one event at a time`);
      const afterImport = memoryOf(live.child);

      const latencies = await decisionLatencies(js, client, instance);
      const resolve = await resolved(live);
      const afterResolve = memoryOf(live.child);

      const replayStart = process.hrtime.bigint();
      const replay = await startEngine(replayEnv);
      engines.push(replay);
      await waitForDurables(jsm, replayEnv);
      await converged(jsm, replayEnv, instance.inputs.length + LATENCY_EVENTS);
      const replayed = msSince(replayStart);

      const sorted = sortedAscending(latencies);
      const rows = [
        ['bulk import → converged (events published in)', `${(imported / 1000).toFixed(1)} s (${(published / 1000).toFixed(1)} s)`,
          `in-process apply of the same inputs: ${(inProcess.ms / 1000).toFixed(2)} s`],
        ['replay into an empty database → converged', `${(replayed / 1000).toFixed(1)} s`, 'process start and stream copy included'],
        [`one event → decided and written (${LATENCY_EVENTS}, one at a time)`,
          `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`,
          `in-process per input: p50 ${inProcess.p50.toFixed(3)} ms, p99 ${inProcess.p99.toFixed(3)} ms`],
        ['engine resident memory after the import (peak)', `${mib(afterImport.rss)} (${mib(afterImport.peak)})`,
          `the same process at rest before the import: ${mib(atRest.rss)}; in-process heap of the tenant: ${mib(inProcess.heapBytes)}`],
        ['exact re-solves of the whole run: components by outcome (seconds)', `${resolve.components} (${resolve.seconds.toFixed(1)} s)`, ''],
        ['engine resident memory after the re-solve (peak of the whole run)', `${mib(afterResolve.rss)} (${mib(afterResolve.peak)})`,
          `JavaScript heap used ${mib(resolve.heapUsed)}, external ${mib(resolve.external)}`],
      ];
      console.log('\nMatching service: one tenant streamed in as events, against the same inputs applied in-process\n');
      console.log('| measure | matching service | baseline |\n|---|---|---|');
      for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    } finally {
      for (const engine of engines) await engine.stop();
      await client.close();
      await env.close();
      await replayEnv.close();
      await nats.stop();
    }
  },
};

interface Engine {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/** The service as production runs it: its own process, from the build. */
async function startEngine(env: TestServiceEnv): Promise<Engine> {
  const port = await findFreePort();
  const child = spawn(process.execPath, [join(root, 'services/matching/dist/main.js')], {
    env: {
      ...process.env,
      ...env.variables,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      MATCHING_PARTITIONS: String(PARTITIONS),
      NODE_OPTIONS: process.env.BENCH_MATCHING_NODE_OPTIONS ?? POD_NODE_OPTIONS,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let attempt = 0; ; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.ok, () => false);
    if (ready) break;
    if (attempt > 300 || child.exitCode !== null) throw new Error('the matching service did not get ready');
    await sleep(100);
  }
  return {
    child,
    port,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const durablesOf = (env: TestServiceEnv) => Array.from({ length: PARTITIONS }, (_, partition) => `matching-p${partition}-${env.variables.MONGO_DB}`);

async function waitForDurables(jsm: JetStreamManager, env: TestServiceEnv): Promise<void> {
  for (const durable of durablesOf(env)) {
    while (!(await jsm.consumers.info(INPUTS_STREAM, durable).then(() => true, () => false))) await sleep(50);
  }
}

/** Every event copied into the inputs stream, and every partition's consumer has acknowledged all it got. */
async function converged(jsm: JetStreamManager, env: TestServiceEnv, events: number): Promise<void> {
  for (;;) {
    const copied = (await jsm.streams.info(INPUTS_STREAM)).state.messages >= events;
    const infos = await Promise.all(durablesOf(env).map((durable) => jsm.consumers.info(INPUTS_STREAM, durable)));
    if (copied && infos.every((info) => info.num_pending === 0 && info.num_ack_pending === 0)) return;
    await sleep(20);
  }
}

const entityEvents = new Map<string, EntityEvents>(INPUT_EVENTS.map((events) => [events.entity, events]));

function envelopeOf(input: Input): { subject: string; event: EventEnvelope } {
  const action = input.deleted ? 'deleted' : input.version === 1 ? 'created' : 'updated';
  const event: EventEnvelope = {
    id: crypto.randomUUID(),
    type: `${input.entity}.${action}`,
    tenant: TENANT,
    entity_id: input.id,
    version: input.version,
    occurred_at: new Date().toISOString(),
    data: { ...input.data, version: input.version },
  };
  return { subject: eventSubject(entityEvents.get(input.entity) as EntityEvents, TENANT, action), event };
}

/** As the owners' relays do: many publishes in flight, each with its event id as Nats-Msg-Id. */
async function publishAll(js: JetStreamClient, inputs: readonly Input[]): Promise<void> {
  for (let start = 0; start < inputs.length; start += PUBLISH_IN_FLIGHT) {
    await Promise.all(
      inputs.slice(start, start + PUBLISH_IN_FLIGHT).map((input) => {
        const { subject, event } = envelopeOf(input);
        return js.publish(subject, JSON.stringify(event), { msgID: event.id });
      }),
    );
  }
}

/**
 * One availability update at a time (mandatory or not): from its publish until the
 * engine's event for its snapshot is out, which follows the database writes of what it decided.
 */
async function decisionLatencies(js: JetStreamClient, client: NatsConnection, instance: MatchingInstance): Promise<number[]> {
  const availabilities = instance.inputs.filter((input) => input.entity === 'availability');
  const latencies: number[] = [];
  for (let index = 0; index < LATENCY_EVENTS; index++) {
    const input = availabilities[(index * 7919) % availabilities.length] as Input;
    // every snapshot shows whether its shift is mandatory: the update always changes it (and each is another availability)
    const toggled = { ...input.data, mandatory: input.data['mandatory'] !== true };
    const update = envelopeOf({ ...input, version: input.version + 1, data: toggled });
    const id = String(input.data['id']);
    const seen = new Promise<void>((resolve) => {
      const subscription = client.subscribe(`rm.matching.${TENANT}.available-employee.*`, {
        callback: (_error, message) => {
          if ((message.json() as EventEnvelope).entity_id !== id) return;
          subscription.unsubscribe();
          resolve();
        },
      });
    });
    await client.flush();
    const start = process.hrtime.bigint();
    await js.publish(update.subject, JSON.stringify(update.event), { msgID: update.event.id });
    await seen;
    latencies.push(msSince(start));
  }
  return latencies;
}

/** The same inputs applied to one TenantMatching in this process: the engine's own work alone. */
function applyInProcess(instance: MatchingInstance): { ms: number; p50: number; p99: number; tenant: TenantMatching } {
  const tenant = new TenantMatching();
  const each: number[] = [];
  const start = process.hrtime.bigint();
  for (const input of instance.inputs) {
    const one = process.hrtime.bigint();
    tenant.apply(input, instance.now);
    each.push(msSince(one));
  }
  const ms = msSince(start);
  const sorted = sortedAscending(each);
  return { ms, p50: percentile(sorted, 50), p99: percentile(sorted, 99), tenant };
}

/** The engine's metrics (Prometheus text): each sample's name, labels and value. */
async function metricsOf(engine: Engine): Promise<{ name: string; labels: string; value: number }[]> {
  const text = await (await fetch(`http://127.0.0.1:${engine.port}/metrics`)).text();
  return text.split('\n').flatMap((line) => {
    const sample = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    return sample === null ? [] : [{ name: sample[1] as string, labels: sample[2] ?? '', value: Number(sample[3]) }];
  });
}

/**
 * Waits until the exact re-solve that the events made due has run and been adopted: one has ended, and
 * none is due or running (a re-solve's parts end one by one, and one part can take a minute); then its figures.
 */
async function resolved(engine: Engine): Promise<{ components: string; seconds: number; heapUsed: number; external: number }> {
  for (;;) {
    const samples = await metricsOf(engine);
    const valueOf = (name: string) => samples.find((sample) => sample.name === name)?.value ?? 0;
    if (valueOf('rm_matching_resolve_seconds_count') > 0 && valueOf('rm_matching_resolves_pending') === 0) {
      const components = samples.flatMap(({ name, labels, value }) => {
        const status = /status="([a-z-]+)"/.exec(labels)?.[1];
        return name === 'rm_matching_exact_components_total' && status !== undefined ? [`${status} ${value}`] : [];
      });
      return {
        components: components.join(', '),
        seconds: valueOf('rm_matching_resolve_seconds_sum'),
        heapUsed: valueOf('nodejs_heap_size_used_bytes'),
        external: valueOf('nodejs_external_memory_bytes'),
      };
    }
    await sleep(500);
  }
}

/** VmRSS and VmHWM of a process, in bytes (Linux). */
function memoryOf(child: ChildProcess): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
