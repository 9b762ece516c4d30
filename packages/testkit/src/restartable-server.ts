import type { RestartableServerHandle } from './server-handle.js';

/** A started server process or container. */
export interface RunningServer {
  stop(): Promise<void>;
}

export interface RestartableServerOptions {
  url: string;
  description: string;
  backend?: string;
  /** Starts the server on its fixed port with its data, which outlive each run. */
  launch(): Promise<RunningServer>;
  /** Removes the server's data once it has stopped for good. */
  removeData(): Promise<void>;
}

/**
 * Starts a server whose port and data survive kill() and start(), so that a test can take it away
 * (as an outage would) and bring it back as it was.
 */
export async function startRestartableServer(options: RestartableServerOptions): Promise<RestartableServerHandle> {
  const { url, description, backend, launch, removeData } = options;
  let running: RunningServer | undefined = await launch();

  async function kill(): Promise<void> {
    const current = running;
    running = undefined;
    await current?.stop();
  }
  async function start(): Promise<void> {
    running ??= await launch();
  }
  return {
    url,
    description,
    ...(backend === undefined ? {} : { backend }),
    kill,
    start,
    async restart() {
      await kill();
      await start();
    },
    async stop() {
      try {
        await kill();
      } finally {
        await removeData();
      }
    },
  };
}
