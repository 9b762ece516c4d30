import { loadTestkitConfig, type TestkitConfig } from './config.js';
import { loadTestcontainers, MONGO_IMAGE, startMongoContainer } from './containers.js';
import { NoServerAvailableError } from './errors.js';
import { findExecutable } from './find-executable.js';
import { findFreePort } from './free-port.js';
import type { ServerHandle } from './server-handle.js';
import { startServerProcess } from './server-process.js';
import { createTempDir } from './temp-dir.js';

type MongoBinary = { kind: 'mongod' | 'ferretdb'; path: string };

/**
 * Starts a dedicated MongoDB-compatible server: a local `mongod`, else a local `ferretdb`, else a
 * `mongo:7` container when a Docker engine is reachable. Never the MONGO_URL server.
 */
export async function startMongoServer(config: TestkitConfig = loadTestkitConfig()): Promise<ServerHandle> {
  const binary = await findMongoBinary(config);
  if (binary !== undefined) return startLocalMongo(binary);
  const testcontainers = await loadTestcontainers();
  if (testcontainers === undefined) {
    throw new NoServerAvailableError(
      'MongoDB-compatible server',
      `MONGO_URL is not set, neither mongod nor ferretdb is on PATH or in ${config.serversBinDir}, ` +
        'and no Docker engine is reachable',
    );
  }
  const container = await startMongoContainer(testcontainers);
  const address = `${container.getHost()}:${container.getMappedPort(27017)}`;
  return {
    url: `mongodb://${address}/?directConnection=true`,
    description: `${MONGO_IMAGE} container on ${address}`,
    stop: async () => {
      await container.stop();
    },
  };
}

export async function findMongoBinary(config: TestkitConfig): Promise<MongoBinary | undefined> {
  const dirs = [...config.pathDirs, config.serversBinDir];
  for (const kind of ['mongod', 'ferretdb'] as const) {
    const path = await findExecutable(kind, dirs);
    if (path !== undefined) return { kind, path };
  }
  return undefined;
}

async function startLocalMongo(binary: MongoBinary): Promise<ServerHandle> {
  const dataDir = await createTempDir(binary.kind);
  try {
    const port = await findFreePort();
    const args =
      binary.kind === 'mongod'
        ? ['--dbpath', dataDir.path, '--port', String(port), '--bind_ip', '127.0.0.1']
        : [
            '--handler=sqlite',
            `--sqlite-url=file:${dataDir.path}/`,
            `--listen-addr=127.0.0.1:${port}`,
            // The defaults would collide between instances (debug port 8088), write state into the
            // working directory, and call a telemetry server.
            '--debug-addr=-',
            `--state-dir=${dataDir.path}`,
            '--telemetry=disable',
            '--log-level=warn',
          ];
    const server = await startServerProcess({
      name: binary.kind,
      command: binary.path,
      args,
      port,
      removeWhenOrphaned: [dataDir.path],
    });
    return {
      url: `mongodb://127.0.0.1:${port}/`,
      description: `${binary.kind} (local binary ${binary.path}) on 127.0.0.1:${port}`,
      async stop() {
        await server.stop();
        await dataDir.remove();
      },
    };
  } catch (error) {
    await dataDir.remove();
    throw error;
  }
}
