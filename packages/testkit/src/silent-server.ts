import { createServer, type AddressInfo, type Socket } from 'node:net';
import { BASE } from './service-harness.js';

// Owners (home bases, employees, transport resources) that a service under test cannot get an answer from.

/** An owner's API where nobody listens (the discard port): a call to it is refused at once. */
export const NOBODY_LISTENS_URL = `http://127.0.0.1:9${BASE}`;

export interface SilentServer {
  /** `http://127.0.0.1:<port>`, for a variable that wants an origin. */
  origin: string;
  /** Its API below the origin, for a variable that wants an owner's URL. */
  url: string;
  /** How many connections it has taken so far. */
  connections(): number;
  /** Drops the connections it holds and stops listening. */
  close(): Promise<void>;
}

/** A server that takes connections and never answers: a call to it lasts until the caller gives up. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let taken = 0;
  const server = createServer((socket) => {
    taken += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}${BASE}`,
    connections: () => taken,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
