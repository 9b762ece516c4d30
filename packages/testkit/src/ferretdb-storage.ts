import { ServerStartError } from './errors.js';
import { prepareFerretdbDatabase } from './ferretdb-index-twins.js';
import { createPostgresDatabase, type PostgresDatabase, type PostgresUnreachable } from './postgres-database.js';
import { hostOf } from './url-host.js';

/** Where a started FerretDB keeps its data. */
export interface FerretdbStorage {
  /** "PostgreSQL 15.20 (database rm_test_…)" or "SQLite (…why not PostgreSQL)". */
  description: string;
  /** ferretdb's handler flags. */
  handlerArgs: string[];
  /** Commands for the supervisor to run if the test process ends without stopping FerretDB. */
  runWhenOrphaned: string[][];
  /** Removes what the storage holds outside `dataDir`, once FerretDB has stopped. */
  remove(): Promise<void>;
}

/**
 * A database of its own on the PostgreSQL server of `postgresUrl` when that server answers (FerretDB's
 * postgresql handler answers point reads and conditional updates 5–18x faster), else SQLite files in
 * `dataDir`.
 */
export async function createFerretdbStorage(postgresUrl: string, dataDir: string): Promise<FerretdbStorage> {
  const database = await createDatabaseFor(postgresUrl);
  if ('unreachable' in database) {
    return {
      description: `SQLite (PostgreSQL at ${hostOf(postgresUrl)} unreachable: ${database.unreachable})`,
      handlerArgs: ['--handler=sqlite', `--sqlite-url=file:${dataDir}/`],
      runWhenOrphaned: [],
      remove: async () => {},
    };
  }
  return {
    description: `PostgreSQL ${database.serverVersion} (database ${database.name})`,
    // dotted fields (`indexed.home_base`) pushed down by find too, as update and delete push them down
    handlerArgs: ['--handler=postgresql', `--postgresql-url=${ferretdbConnectionUrl(database.url)}`, '--test-enable-nested-pushdown'],
    runWhenOrphaned: [database.dropCommand],
    remove: () => database.drop(),
  };
}

/**
 * FerretDB's PostgreSQL connections: 48 instead of its 50, so that two FerretDBs (a test run's, and a
 * scenario's that it restarts) fit in PostgreSQL's default 100 with room for a few others. The services of
 * a stack need fewer than that together (MONGO_MAX_POOL_SIZE, BULK_CHUNK in @rm/store).
 */
const FERRETDB_POSTGRES_CONNECTIONS = 48;

/** Hosts whose connections never leave the machine: TLS there protects nothing. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * FerretDB's URL of its database: a pool limit, and no TLS to a server on this machine unless the URL
 * asks for it. pgx's default (`sslmode=prefer`) encrypts loopback connections whenever the server has
 * TLS on, as Debian's has: that was a tenth of FerretDB's CPU during a bulk load (its profile), and
 * PostgreSQL's side paid again.
 */
export function ferretdbConnectionUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (!url.searchParams.has('pool_max_conns')) url.searchParams.set('pool_max_conns', String(FERRETDB_POSTGRES_CONNECTIONS));
  if (!url.searchParams.has('sslmode') && LOOPBACK_HOSTS.has(url.hostname)) url.searchParams.set('sslmode', 'disable');
  return url.toString();
}

async function createDatabaseFor(postgresUrl: string): Promise<PostgresDatabase | PostgresUnreachable> {
  try {
    const database = await createPostgresDatabase(postgresUrl);
    if ('unreachable' in database) return database;
    await prepareFerretdbDatabase(database.url, database.name).catch(async (error: unknown) => {
      await database.drop();
      throw error;
    });
    return database;
  } catch (error) {
    // PostgreSQL answers but refuses: a setting to fix, not a reason to run slower on SQLite
    throw new ServerStartError(
      `cannot create FerretDB's database on PostgreSQL at ${hostOf(postgresUrl)} (RM_POSTGRES_URL): ` +
        (error instanceof Error ? error.message : String(error)),
      { cause: error },
    );
  }
}
