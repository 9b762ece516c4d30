import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { findFreePort, startMongoServer, testServers, uniqueName, waitFor } from '@rm/testkit';
import { DatabaseUnavailableError, connectMongo } from '../src/index.js';

const logger = pino({ level: 'silent' });

describe('connectMongo', () => {
  it('connects to the named database of a reachable server', async () => {
    const dbName = uniqueName('connect');
    const { client, db } = await connectMongo({ url: testServers().mongoUrl, dbName, logger });
    try {
      expect(db.databaseName).toBe(dbName);
      await expect(db.command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    } finally {
      await client.close();
    }
  });

  it('retries, then gives up with a 503 error that names the host but not the credentials', async () => {
    // free a moment ago, so nothing listens there
    const port = await findFreePort();
    const attempt = connectMongo({
      url: `mongodb://user:secret@127.0.0.1:${port}/`,
      dbName: 'x',
      logger,
      attempts: 2,
      retryDelayMs: 10,
      operationTimeoutMs: 200,
    });
    await expect(attempt).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(attempt).rejects.toMatchObject({ statusCode: 503 });
    const message = await attempt.catch((error: Error) => error.message);
    expect(message).toContain(`127.0.0.1:${port}`);
    expect(message).toContain('after 2 attempts');
    expect(message).not.toContain('secret');
  });

  it('gives up on a server that takes connections but never answers, instead of hanging', async () => {
    const sockets: Socket[] = [];
    const hung: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const { port } = hung.address() as { port: number };
    try {
      const attempt = connectMongo({ url: `mongodb://127.0.0.1:${port}/`, dbName: 'x', logger, attempts: 1, operationTimeoutMs: 300 });
      await expect(attempt).rejects.toBeInstanceOf(DatabaseUnavailableError);
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hung.close(resolve));
    }
  });

  it('keeps few enough connections that a stack of services writing through a database restart all get on again', async () => {
    // FerretDB holds two of its PostgreSQL connections per update (the matching query stays open while it
    // writes). With the driver's default pool of 100, six services' writers retrying at a restart took one each,
    // and then every one of them waited for a second one forever. The testkit's FerretDB has 48: six services
    // of 4, as the dev stack and the tests run them, hold at most 24 while they wait, so one is always free.
    const server = await startMongoServer();
    const services = await Promise.all(
      Array.from({ length: 6 }, () => connectMongo({ url: server.url, dbName: uniqueName('restart'), logger, maxPoolSize: 4 })),
    );
    const updated = new Array<number>(services.length * 16).fill(0);
    let writing = true;
    const writers = updated.map(async (_, index) => {
      const { db } = services[index % services.length]!;
      while (writing) {
        await db
          .collection<{ _id: string; n: number }>('writes')
          .updateOne({ _id: `d${index}` }, { $inc: { n: 1 } }, { upsert: true })
          .then(() => (updated[index]! += 1), () => sleep(100));
      }
    });
    try {
      await waitFor('every writer to write', async () => updated.every((count) => count > 0));
      await server.restart();
      const before = [...updated];
      const stuck = () => updated.filter((count, index) => count === before[index]).length;
      await waitFor('every writer to write again', async () => stuck() === 0).catch(() => undefined);
      expect(stuck()).toBe(0);
    } finally {
      writing = false;
      await Promise.all(writers);
      await Promise.all(services.map(({ client }) => client.close()));
      await server.stop();
    }
  }, 90_000);
});
