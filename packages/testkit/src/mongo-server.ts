import { loadTestkitConfig, type TestkitConfig } from './config.js';
import { loadTestcontainers, MONGO_IMAGE, startMongoContainer } from './containers.js';
import { NoServerAvailableError } from './errors.js';
import { createFerretdbStorage, type FerretdbStorage } from './ferretdb-storage.js';
import { findExecutable } from './find-executable.js';
import { findFreePort } from './free-port.js';
import { startRestartableServer } from './restartable-server.js';
import type { RestartableServerHandle } from './server-handle.js';
import { startServerProcess } from './server-process.js';
import { createTempDir } from './temp-dir.js';

type MongoBinary = { kind: 'mongod' | 'ferretdb'; path: string };

/**
 * Starts a dedicated MongoDB-compatible server: a local `mongod`, else a local `ferretdb` (on a
 * PostgreSQL database of its own when RM_POSTGRES_URL answers, else on SQLite), else a `mongo:7`
 * container when a Docker engine is reachable. Never the MONGO_URL server. kill() and start() keep
 * its port and data, so that a test can stage a database outage.
 */
export async function startMongoServer(config: TestkitConfig = loadTestkitConfig()): Promise<RestartableServerHandle> {
  const binary = await findMongoBinary(config);
  if (binary !== undefined) return startLocalMongo(binary, config);
  const testcontainers = await loadTestcontainers();
  if (testcontainers === undefined) {
    throw new NoServerAvailableError(
      'MongoDB-compatible server',
      `MONGO_URL is not set, neither mongod nor ferretdb is on PATH or in ${config.serversBinDir}, ` +
        'and no Docker engine is reachable',
    );
  }
  const dataDir = await createTempDir('mongo');
  const port = await findFreePort();
  try {
    return await startRestartableServer({
      url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
      description: `${MONGO_IMAGE} container on 127.0.0.1:${port}`,
      async launch() {
        const container = await startMongoContainer(testcontainers, { port, dataDir: dataDir.path });
        return { stop: async () => void (await container.stop()) };
      },
      removeData: () => dataDir.remove(),
    });
  } catch (error) {
    await dataDir.remove();
    throw error;
  }
}

export async function findMongoBinary(config: TestkitConfig): Promise<MongoBinary | undefined> {
  const dirs = [...config.pathDirs, config.serversBinDir];
  for (const kind of ['mongod', 'ferretdb'] as const) {
    const path = await findExecutable(kind, dirs);
    if (path !== undefined) return { kind, path };
  }
  return undefined;
}

async function startLocalMongo(binary: MongoBinary, config: TestkitConfig): Promise<RestartableServerHandle> {
  const dataDir = await createTempDir(binary.kind);
  let storage: FerretdbStorage | undefined;
  const removeData = async () => {
    try {
      await storage?.remove();
    } finally {
      await dataDir.remove();
    }
  };
  try {
    const port = await findFreePort();
    if (binary.kind === 'ferretdb') storage = await createFerretdbStorage(config.postgresUrl, dataDir.path);
    const args = storage === undefined ? mongodArgs(dataDir.path, port) : ferretdbArgs(storage, dataDir.path, port);
    const on = storage === undefined ? '' : ` on ${storage.description}`;
    return await startRestartableServer({
      url: `mongodb://127.0.0.1:${port}/`,
      description: `${binary.kind} (local binary ${binary.path})${on} at 127.0.0.1:${port}`,
      ...(storage === undefined ? {} : { backend: storage.description }),
      launch: () =>
        startServerProcess({
          name: binary.kind,
          command: binary.path,
          args,
          port,
          removeWhenOrphaned: [dataDir.path],
          runWhenOrphaned: storage?.runWhenOrphaned ?? [],
        }),
      removeData,
    });
  } catch (error) {
    await removeData();
    throw error;
  }
}

function mongodArgs(dataDir: string, port: number): string[] {
  return ['--dbpath', dataDir, '--port', String(port), '--bind_ip', '127.0.0.1'];
}

function ferretdbArgs(storage: FerretdbStorage, dataDir: string, port: number): string[] {
  return [
    ...storage.handlerArgs,
    `--listen-addr=127.0.0.1:${port}`,
    // The defaults would collide between instances (debug port 8088), write state into the working
    // directory, and call a telemetry server.
    '--debug-addr=-',
    `--state-dir=${dataDir}`,
    '--telemetry=disable',
    '--log-level=warn',
  ];
}
