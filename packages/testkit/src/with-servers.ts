#!/usr/bin/env node
// rm-with-servers <command> [args…]: runs the command with MONGO_URL / NATS_URL pointing at servers
// started once for the whole run (or taken from the environment), then stops them.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { describeServers } from './describe-servers.js';
import { startRunServers } from './run-servers.js';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined) {
    console.error('usage: rm-with-servers <command> [args…]');
    return 2;
  }
  const servers = await startRunServers();
  try {
    console.log(`tests run on: ${await describeServers(servers)}`);
    const child = spawn(command, args, {
      stdio: 'inherit',
      env: { ...process.env, MONGO_URL: servers.mongoUrl, NATS_URL: servers.natsUrl },
    });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
    });
    for (const forwarded of FORWARDED_SIGNALS) process.off(forwarded, forward);
    return code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
  } finally {
    await servers.stop();
  }
}

main(process.argv.slice(2)).then(
  (exitCode) => process.exit(exitCode),
  (error: unknown) => {
    console.error(`rm-with-servers: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
