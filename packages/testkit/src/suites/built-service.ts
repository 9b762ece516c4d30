import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { NOBODY_LISTENS_URL } from '../silent-server.js';
import { createTestServiceEnv, type TestServiceEnv } from '../test-service-env.js';
import { waitFor } from '../wait-for.js';
import { BASE } from '../service-helpers.js';
import type { Method } from './service-under-test.js';

/** An HTTP call as the tenant; `body` is the parsed JSON answer (undefined when empty). */
export type Call = (method: Method, path: string, body?: object) => Promise<{ status: number; body: unknown }>;

export interface BuiltServiceOptions {
  /** The path of the built entry point (`dist/main.js`), as `npm start` runs it. */
  main: string;
  /** The package, for the hint to build it first. */
  packageName: string;
  /** The prefix of the test database's name. */
  prefix: string;
  tenant: string;
  /** Variables beyond the test env's, read once the file's own beforeAll hooks declared before have run. */
  variables?(): Record<string, string>;
}

export interface BuiltService {
  call: Call;
  /** The service's database, read directly. */
  db(): Db;
  /** Runs the built service until it is ready; fails with its output if it stops first. */
  start(): Promise<ChildProcess>;
}

/**
 * The built service as a process of its own on a test database, which a test may SIGKILL and start
 * again: declares the hooks that set it up and that kill what `start` ran.
 */
export function useBuiltService(options: BuiltServiceOptions): BuiltService {
  let env: TestServiceEnv;
  let mongo: MongoClient;
  let authorization: Record<string, string>;
  const children: ChildProcess[] = [];
  const origin = () => `http://127.0.0.1:${env.variables.PORT}`;

  beforeAll(async () => {
    expect(existsSync(options.main), `${options.main} is missing: build first (npx turbo run build --filter=${options.packageName})`).toBe(true);
    // every owner a service may call is one nobody listens at, unless the test gives its own in variables()
    const owners = { HOME_BASES_URL: NOBODY_LISTENS_URL, EMPLOYEES_URL: NOBODY_LISTENS_URL, TRANSPORT_RESOURCES_URL: NOBODY_LISTENS_URL };
    const variables = { ...owners, ...options.variables?.() };
    env = await createTestServiceEnv(options.prefix, variables);
    mongo = await MongoClient.connect(env.variables.MONGO_URL ?? '');
    authorization = await env.bearer(options.tenant);
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await mongo?.close();
    await env?.close();
  });

  return {
    async call(method, path, body) {
      const json = body === undefined ? {} : { headers: { ...authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) };
      const response = await fetch(`${origin()}${BASE}${path}`, { method, headers: authorization, ...json });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
    },
    db: () => mongo.db(env.variables.MONGO_DB),
    async start() {
      const child = spawn(process.execPath, [options.main], { env: { PATH: process.env.PATH ?? '', ...env.variables, LOG_LEVEL: 'warn' } });
      children.push(child);
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const ready = () => fetch(`${origin()}/readyz`).then((response) => response.ok, () => false);
      await waitFor(
        'the service to be ready',
        async () => {
          if (child.exitCode !== null) throw new Error(`the service stopped with ${child.exitCode} before it was ready:\n${output}`);
          return ready();
        },
        20_000,
      );
      return child;
    },
  };
}
