// A TCP proxy that a scenario can take away and bring back: the server behind it disappears for its
// clients (connections reset, new ones refused) while it keeps running for everybody else.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { findFreePort } from '@rm/testkit';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Resets every connection through it and refuses new ones. */
  kill(): Promise<void>;
  /** Accepts connections again, on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await findFreePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  async function start(): Promise<void> {
    const listening = createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => listening.once('error', reject).listen(port, '127.0.0.1', resolve));
    server = listening;
  }

  async function kill(): Promise<void> {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    if (closing !== undefined) await new Promise((resolve) => closing.close(resolve));
  }

  await start();
  return { port, kill, start, stop: kill };
}
