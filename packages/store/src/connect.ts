import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient, type Db } from 'mongodb';
import type { Logger } from 'pino';
import { mendClosedConnectionWrites } from './closed-connection-writes.js';
import { DatabaseUnavailableError } from './errors.js';

export interface ConnectMongoOptions {
  url: string;
  dbName: string;
  logger: Logger;
  appName?: string;
  /** Attempts before giving up; a pod that starts before its database waits for it. */
  attempts?: number;
  retryDelayMs?: number;
  /**
   * Longest a database call waits for a server to take it, and then for its answer (default 10 s): a
   * server that is gone or hangs becomes an error (503), never a stuck request, relay or consumer
   * (FerretDB's PostgreSQL handler can hang on bulk writes). The driver's own `timeoutMS` has no
   * effect since driver 7.
   */
  operationTimeoutMs?: number;
  /**
   * Connections to the server, and so database calls at once (default 8): operations take milliseconds, so a
   * few suffice. On FerretDB, which tests and the dev stack run on, the services sharing it must keep fewer
   * together than its PostgreSQL connections (50, or its URL's pool_max_conns): it holds two of them per
   * update for a while, and when more updates came at once (a burst at a restart), each got one and all
   * waited forever for a second.
   */
  maxPoolSize?: number;
}

export interface MongoConnection {
  client: MongoClient;
  db: Db;
}

export async function connectMongo(options: ConnectMongoOptions): Promise<MongoConnection> {
  const { url, dbName, logger, appName, attempts = 30, retryDelayMs = 1000, operationTimeoutMs = 10_000, maxPoolSize = 8 } = options;
  mendClosedConnectionWrites();
  for (let attempt = 1; ; attempt += 1) {
    const client = new MongoClient(url, {
      appName,
      maxPoolSize,
      serverSelectionTimeoutMS: operationTimeoutMs,
      connectTimeoutMS: operationTimeoutMs,
      socketTimeoutMS: operationTimeoutMs,
    });
    try {
      await client.connect();
      const db = client.db(dbName);
      await db.command({ ping: 1 });
      logger.info({ dbName, attempt }, 'mongodb connected');
      return { client, db };
    } catch (error) {
      await client.close().catch(() => undefined);
      if (attempt >= attempts) {
        throw new DatabaseUnavailableError(`MongoDB at ${redactUrl(url)} is unreachable after ${attempt} attempts`, {
          cause: error,
        });
      }
      logger.warn({ err: error, attempt, attempts }, 'mongodb not reachable yet, retrying');
      await sleep(retryDelayMs);
    }
  }
}

/** Connection strings may carry credentials; logs and errors get the host part only. */
function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
