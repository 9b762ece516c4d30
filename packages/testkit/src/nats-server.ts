import { loadTestkitConfig, type TestkitConfig } from './config.js';
import { loadTestcontainers, NATS_IMAGE, startNatsContainer } from './containers.js';
import { NoServerAvailableError } from './errors.js';
import { findExecutable } from './find-executable.js';
import { findFreePort } from './free-port.js';
import { startRestartableServer, type RunningServer } from './restartable-server.js';
import type { NatsServerHandle } from './server-handle.js';
import { startServerProcess } from './server-process.js';
import { createTempDir, type TempDir } from './temp-dir.js';

export interface NatsServerOptions {
  /** JetStream store directory to use (and keep); default a throw-away directory. */
  storeDir?: string;
}

/** How to run nats-server on this machine: a local binary or a container. */
interface NatsRuntime {
  describe(port: number): string;
  /** `removeWhenOrphaned`: directories to remove if the server outlives the test process. */
  launch(port: number, storeDir: string, removeWhenOrphaned: string[]): Promise<RunningServer>;
}

/**
 * Starts a dedicated nats-server with JetStream: the pinned build in the servers cache, else one on
 * PATH, else a `nats:2.12` container when a Docker engine is reachable. Never the NATS_URL server.
 */
export async function startNatsServer(
  options: NatsServerOptions = {},
  config: TestkitConfig = loadTestkitConfig(),
): Promise<NatsServerHandle> {
  const runtime = await findNatsRuntime(config);
  const ownedDir: TempDir | undefined = options.storeDir === undefined ? await createTempDir('nats') : undefined;
  const storeDir = options.storeDir ?? (ownedDir as TempDir).path;
  const removeWhenOrphaned = ownedDir === undefined ? [] : [ownedDir.path];
  const port = await findFreePort();

  try {
    const server = await startRestartableServer({
      url: `nats://127.0.0.1:${port}`,
      description: runtime.describe(port),
      launch: () => runtime.launch(port, storeDir, removeWhenOrphaned),
      removeData: async () => ownedDir?.remove(),
    });
    return { ...server, port, storeDir };
  } catch (error) {
    await ownedDir?.remove();
    throw error;
  }
}

async function findNatsRuntime(config: TestkitConfig): Promise<NatsRuntime> {
  // The cache holds the pinned build; PATH may hold an older distribution package.
  const binary = await findExecutable('nats-server', [config.serversBinDir, ...config.pathDirs]);
  if (binary !== undefined) {
    return {
      describe: (port) => `nats-server (local binary ${binary}) on 127.0.0.1:${port}`,
      launch: (port, storeDir, removeWhenOrphaned) =>
        startServerProcess({
          name: 'nats-server',
          command: binary,
          args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir],
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
    async launch(port, storeDir) {
      const container = await startNatsContainer(testcontainers, { port, storeDir });
      return { stop: async () => void (await container.stop()) };
    },
  };
}
