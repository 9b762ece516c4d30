import { loadTestkitConfig, type TestkitConfig } from './config.js';
import { startMongoServer } from './mongo-server.js';
import { startNatsServer } from './nats-server.js';
import type { ServerHandle } from './server-handle.js';
import type { TestServerUrls } from './test-servers.js';

export interface RunServers extends TestServerUrls {
  /** What a FerretDB started for the run keeps its data in (ServerHandle.backend), for describeServers. */
  mongoBackend: string | undefined;
  /** True when both URLs came from the environment and nothing was started. */
  fromEnvironment: boolean;
  /** Stops the servers that were started for the run. */
  stop(): Promise<void>;
}

/** The servers for a test run: MONGO_URL / NATS_URL when set, else servers started for the run. */
export async function startRunServers(config: TestkitConfig = loadTestkitConfig()): Promise<RunServers> {
  const started: ServerHandle[] = [];
  const stop = async () => {
    await Promise.all(started.splice(0).map((server) => server.stop()));
  };
  try {
    const mongo: Pick<ServerHandle, 'url' | 'backend'> =
      config.mongoUrl === undefined ? await track(started, startMongoServer(config)) : { url: config.mongoUrl };
    const natsUrl = config.natsUrl ?? (await track(started, startNatsServer({}, config))).url;
    return { mongoUrl: mongo.url, mongoBackend: mongo.backend, natsUrl, fromEnvironment: started.length === 0, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function track<T extends ServerHandle>(started: ServerHandle[], starting: Promise<T>): Promise<T> {
  const server = await starting;
  started.push(server);
  return server;
}
