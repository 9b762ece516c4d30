import type { StartedTestContainer } from 'testcontainers';

type Testcontainers = typeof import('testcontainers');

export const MONGO_IMAGE = 'mongo:7';
export const NATS_IMAGE = 'nats:2.12';

/**
 * testcontainers, when a container engine answers; undefined otherwise. Imported on demand so that
 * runs with local binaries never load it.
 */
export async function loadTestcontainers(): Promise<Testcontainers | undefined> {
  try {
    const testcontainers = await import('testcontainers');
    await testcontainers.getContainerRuntimeClient();
    return testcontainers;
  } catch {
    return undefined;
  }
}

/** A MongoDB whose data is the host's `dataDir`, published on the host's `port`. */
export async function startMongoContainer(
  testcontainers: Testcontainers,
  options: { port: number; dataDir: string },
): Promise<StartedTestContainer> {
  return new testcontainers.GenericContainer(MONGO_IMAGE)
    .withBindMounts([{ source: options.dataDir, target: '/data/db', mode: 'rw' }])
    .withExposedPorts({ container: 27017, host: options.port })
    .withWaitStrategy(testcontainers.Wait.forLogMessage(/Waiting for connections/))
    .start();
}

/**
 * A nats-server with JetStream whose store is the host's `storeDir`, published on the host's `port`,
 * with the configuration of the host's `configFile`.
 */
export async function startNatsContainer(
  testcontainers: Testcontainers,
  options: { port: number; storeDir: string; configFile: string },
): Promise<StartedTestContainer> {
  return new testcontainers.GenericContainer(NATS_IMAGE)
    .withCommand(['-c', '/etc/nats/authorization.conf', '-js', '-sd', '/data'])
    .withBindMounts([
      { source: options.storeDir, target: '/data', mode: 'rw' },
      { source: options.configFile, target: '/etc/nats/authorization.conf', mode: 'ro' },
    ])
    .withExposedPorts({ container: 4222, host: options.port })
    .withWaitStrategy(testcontainers.Wait.forLogMessage(/Server is ready/))
    .start();
}
