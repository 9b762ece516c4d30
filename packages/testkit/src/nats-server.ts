import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadTestkitConfig, type TestkitConfig } from './config.js';
import { loadTestcontainers, NATS_IMAGE, startNatsContainer } from './containers.js';
import { NoServerAvailableError } from './errors.js';
import { findExecutable } from './find-executable.js';
import { findFreePort } from './free-port.js';
import { startRestartableServer, type RunningServer } from './restartable-server.js';
import type { NatsServerHandle } from './server-handle.js';
import { startServerProcess } from './server-process.js';
import { createTempDir, type TempDir } from './temp-dir.js';
import { testNatsAuthorization } from './test-nats-access.js';

export interface NatsServerOptions {
  /** JetStream store directory to use (and keep); default a throw-away directory. */
  storeDir?: string;
  /** nats-server's `authorization` block; default every user with the run's password (testNatsAuthorization). */
  authorization?: string;
}

/** How to run nats-server on this machine: a local binary or a container. */
interface NatsRuntime {
  describe(port: number): string;
  /** `removeWhenOrphaned`: directories to remove if the server outlives the test process. */
  launch(port: number, storeDir: string, configFile: string, removeWhenOrphaned: string[]): Promise<RunningServer>;
}

/**
 * Starts a dedicated nats-server with JetStream and the users of production (testNatsAuthorization):
 * the pinned build in the servers cache, else one on PATH, else a `nats:2.12` container when a Docker
 * engine is reachable. Never the NATS_URL server.
 */
export async function startNatsServer(
  options: NatsServerOptions = {},
  config: TestkitConfig = loadTestkitConfig(),
): Promise<NatsServerHandle> {
  const runtime = await findNatsRuntime(config);
  const ownedDir: TempDir | undefined = options.storeDir === undefined ? await createTempDir('nats') : undefined;
  const storeDir = options.storeDir ?? (ownedDir as TempDir).path;
  const configDir = await createTempDir('nats-config');
  const configFile = join(configDir.path, 'authorization.conf');
  const removeWhenOrphaned = [configDir.path, ...(ownedDir === undefined ? [] : [ownedDir.path])];
  const removeData = async () => {
    await Promise.all([configDir.remove(), ownedDir?.remove()]);
  };
  const port = await findFreePort();

  try {
    await writeFile(configFile, options.authorization ?? testNatsAuthorization());
    const server = await startRestartableServer({
      url: `nats://127.0.0.1:${port}`,
      description: runtime.describe(port),
      launch: () => runtime.launch(port, storeDir, configFile, removeWhenOrphaned),
      removeData,
    });
    return { ...server, port, storeDir };
  } catch (error) {
    await removeData();
    throw error;
  }
}

async function findNatsRuntime(config: TestkitConfig): Promise<NatsRuntime> {
  // The cache holds the pinned build; PATH may hold an older distribution package.
  const binary = await findExecutable('nats-server', [config.serversBinDir, ...config.pathDirs]);
  if (binary !== undefined) {
    return {
      describe: (port) => `nats-server (local binary ${binary}) on 127.0.0.1:${port}`,
      launch: (port, storeDir, configFile, removeWhenOrphaned) =>
        startServerProcess({
          name: 'nats-server',
          command: binary,
          // the flags win over the file, which holds the authorization only
          args: ['-c', configFile, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir],
          port,
          removeWhenOrphaned,
        }),
    };
  }
  const testcontainers = await loadTestcontainers();
  if (testcontainers === undefined) {
    throw new NoServerAvailableError(
      'nats-server',
      `NATS_URL is not set, nats-server is neither in ${config.serversBinDir} nor on PATH, ` +
        'and no Docker engine is reachable',
    );
  }
  return {
    describe: (port) => `${NATS_IMAGE} container on 127.0.0.1:${port}`,
    async launch(port, storeDir, configFile) {
      const container = await startNatsContainer(testcontainers, { port, storeDir, configFile });
      return { stop: async () => void (await container.stop()) };
    },
  };
}
