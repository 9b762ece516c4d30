import { createServer, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { findFreePort, testServers, uniqueName } from '@rm/testkit';
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
});
