import { type Db, MongoClient } from 'mongodb';
import { testServers } from './test-servers.js';
import { uniqueName } from './unique-name.js';

export interface TestMongo {
  client: MongoClient;
  /** A fresh database with a unique name, dropped by close(). */
  db: Db;
  close(): Promise<void>;
}

/** Connects to the run's MongoDB-compatible server (or `url`) and opens a fresh database. */
export async function connectTestMongo(prefix: string, options: { url?: string } = {}): Promise<TestMongo> {
  const client = new MongoClient(options.url ?? testServers().mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const db = client.db(uniqueName(prefix));
  return {
    client,
    db,
    async close() {
      try {
        await db.dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}
