import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createLogger, type Logger } from '@rm/service-kit';
import { testNatsAdmin, uniqueName, type TestServerUrls } from '@rm/testkit';
import { MongoClient, type Db } from 'mongodb';
import { createMemoryProbe, type MemoryProbe } from './memory.ts';

/** What every bench gets: connections to the run's servers, and names it owns until close(). */
export interface BenchContext {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Silent unless asked (BENCH_LOG_LEVEL): log lines would cost time inside the measured series. */
  logger: Logger;
  probe: MemoryProbe;
  /** A database with a unique name, dropped by close(). */
  database(prefix: string): Db;
  /** Registers a stream name for deletion by close(). */
  ownStream(name: string): void;
}

export interface Bench {
  /** What `node bench/run.ts <name>` selects. */
  name: string;
  run(context: BenchContext): Promise<void>;
}

export interface OpenBenchContext extends BenchContext {
  /** Drops the databases and deletes the streams of the run, then closes the connections. */
  close(): Promise<void>;
}

export async function openBenchContext(servers: TestServerUrls, logLevel = 'silent'): Promise<OpenBenchContext> {
  const mongo = new MongoClient(servers.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  await mongo.connect();
  const nc = await connect({ servers: servers.natsUrl, ...testNatsAdmin() });
  const jsm = await jetstreamManager(nc);
  const databases: Db[] = [];
  const streams: string[] = [];
  return {
    js: jetstream(nc),
    jsm,
    logger: createLogger({ level: logLevel, name: 'bench' }),
    probe: createMemoryProbe(),
    database(prefix) {
      const db = mongo.db(uniqueName(prefix));
      databases.push(db);
      return db;
    },
    ownStream(name) {
      streams.push(name);
    },
    async close() {
      try {
        for (const name of streams) await jsm.streams.delete(name).catch(() => false);
        for (const db of databases) await db.dropDatabase();
      } finally {
        await nc.close();
        await mongo.close();
      }
    },
  };
}
