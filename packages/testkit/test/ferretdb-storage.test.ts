import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { describe, expect, test } from 'vitest';
import { findFreePort, loadTestkitConfig, startMongoServer, startRunServers, uniqueName, waitFor } from '../src/index.js';
import { ferretdbConnectionUrl } from '../src/ferretdb-storage.js';
import { findMongoBinary } from '../src/mongo-server.js';

const ORPHANED_SERVER = fileURLToPath(new URL('./fixtures/orphaned-mongo-server.fixture.ts', import.meta.url));
const config = loadTestkitConfig();
// a local mongod wins over ferretdb, and has no backend to choose
const runsFerretdb = (await findMongoBinary(config))?.kind === 'ferretdb';
const POSTGRES_BACKEND = /^PostgreSQL \d+\.\d+ \(database (rm_test_[a-z0-9_]+)\)$/;

async function postgresQuery<Row extends object>(sql: string, parameters: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: config.postgresUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql, parameters)).rows;
  } finally {
    await client.end();
  }
}

async function postgresDatabases(): Promise<string[]> {
  return (await postgresQuery<{ datname: string }>('SELECT datname FROM pg_database')).map((row) => row.datname);
}

/** Whether each connection to `database` is encrypted. */
async function connectionsEncrypted(database: string): Promise<boolean[]> {
  const rows = await postgresQuery<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE datname = $1', [database]);
  return rows.map((row) => row.ssl);
}

function databaseOf(backend: string | undefined): string {
  const name = POSTGRES_BACKEND.exec(backend ?? '')?.[1];
  if (name === undefined) throw new Error(`not a PostgreSQL backend: ${backend}`);
  return name;
}

/** The first line of `output`, or undefined when it ends without one. */
async function firstLine(output: Readable): Promise<string | undefined> {
  for await (const line of createInterface({ input: output })) return line;
  return undefined;
}

async function storesAndReturnsADocument(url: string): Promise<void> {
  const client = new MongoClient(url);
  try {
    const things = client.db(uniqueName('storage')).collection<{ _id: string; name: string }>('things');
    await things.insertOne({ _id: 'a', name: 'first' });
    expect(await things.findOne({ _id: 'a' })).toEqual({ _id: 'a', name: 'first' });
  } finally {
    await client.close();
  }
}

describe("FerretDB's PostgreSQL URL", () => {
  test('asks for no TLS to a server on this machine, and a pool limit, unless the URL says otherwise', () => {
    const options = (url: string) => Object.fromEntries(new URL(ferretdbConnectionUrl(url)).searchParams);
    expect(options('postgres://postgres@127.0.0.1:5432/rm_test_a')).toEqual({ sslmode: 'disable', pool_max_conns: '48' });
    expect(options('postgres://postgres@localhost/rm_test_a')).toEqual({ sslmode: 'disable', pool_max_conns: '48' });
    expect(options('postgres://postgres@[::1]:5432/rm_test_a')).toEqual({ sslmode: 'disable', pool_max_conns: '48' });
    expect(options('postgres://ci@db.internal:5432/rm_test_a')).toEqual({ pool_max_conns: '48' });
    expect(options('postgres://postgres@127.0.0.1/rm_test_a?sslmode=require&pool_max_conns=20')).toEqual({ sslmode: 'require', pool_max_conns: '20' });
  });
});

describe.skipIf(!runsFerretdb)('FerretDB started by the testkit', () => {
  test('runs on a PostgreSQL database of its own, dropped by stop()', async () => {
    const server = await startMongoServer(config);
    let database: string;
    try {
      database = databaseOf(server.backend);
      expect(server.description).toContain(`on ${server.backend} at 127.0.0.1:`);
      expect(await postgresDatabases()).toContain(database);
      await storesAndReturnsADocument(server.url);
      // over loopback, without TLS (see ferretdbConnectionUrl)
      expect(await connectionsEncrypted(database)).toContain(false);
      expect(await connectionsEncrypted(database)).not.toContain(true);
    } finally {
      await server.stop();
    }
    expect(await postgresDatabases()).not.toContain(database);
  });

  test('falls back to SQLite, and says why, when RM_POSTGRES_URL does not answer', async () => {
    const closedPort = await findFreePort();
    const server = await startMongoServer(
      loadTestkitConfig({ ...process.env, RM_POSTGRES_URL: `postgres://postgres@127.0.0.1:${closedPort}/postgres` }),
    );
    try {
      expect(server.backend).toMatch(new RegExp(`^SQLite \\(PostgreSQL at 127\\.0\\.0\\.1:${closedPort} unreachable: .+\\)$`));
      expect(server.description).toContain(' on SQLite (PostgreSQL at ');
      await storesAndReturnsADocument(server.url);
    } finally {
      await server.stop();
    }
  });

  test("a run's servers carry the backend for the `tests run on` line", async () => {
    const servers = await startRunServers({ ...config, mongoUrl: undefined, natsUrl: process.env.NATS_URL });
    try {
      expect(servers.mongoBackend).toMatch(POSTGRES_BACKEND);
    } finally {
      await servers.stop();
    }
    expect(await postgresDatabases()).not.toContain(databaseOf(servers.mongoBackend));
  });

  test('its database is dropped when the process that started it is killed', async () => {
    const child = spawn(process.execPath, [ORPHANED_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    const database = databaseOf(await firstLine(child.stdout));
    expect(await postgresDatabases()).toContain(database);

    child.kill('SIGKILL');
    await exited;

    await waitFor(`database ${database} to be dropped`, async () => !(await postgresDatabases()).includes(database));
  }, 60_000);
});
