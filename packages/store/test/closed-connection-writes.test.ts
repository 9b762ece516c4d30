// The driver hang that mendClosedConnectionWrites mends, provoked on the driver's own connection: the
// internals used here are the ones the mend touches.
import { MongoNetworkError, type MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers, uniqueName } from '@rm/testkit';
import { connectMongo } from '../src/index.js';

interface DriverConnection {
  socket: { destroy(): void };
  command(ns: { db: string; collection: string | undefined; toString(): string }, command: object, options: object): Promise<unknown>;
}

let client: MongoClient;

beforeAll(async () => {
  ({ client } = await connectMongo({ url: testServers().mongoUrl, dbName: uniqueName('mend'), logger: pino({ level: 'silent' }) }));
});

afterAll(async () => {
  await client.close();
});

describe('a command on a connection that closes while it is being written', () => {
  it('fails with a network error instead of waiting forever (the server monitor then finds the server again)', async () => {
    const { topology } = client as unknown as { topology: { s: { servers: Map<string, { monitor: { connection: DriverConnection } }> } } };
    const [server] = topology.s.servers.values();
    const connection = server!.monitor.connection;
    const adminNamespace = { db: 'admin', collection: '$cmd', toString: () => 'admin.$cmd' };
    const outcome = connection.command(adminNamespace, { hello: 1 }, { socketTimeoutMS: 2_000 });
    // the driver serializes the command asynchronously: the socket closes meanwhile, as when a server stops
    connection.socket.destroy();
    const settled = await Promise.race([
      outcome.then(
        () => 'answered',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000)),
    ]);
    expect(settled).toBeInstanceOf(MongoNetworkError);
  });
});
