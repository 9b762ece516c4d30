// Throw-away PostgreSQL databases for FerretDB's postgresql handler. Run as a script,
// `node postgres-database.js <server url> <database>` drops one: the server supervisor does that when
// the test process ended without stopping its server. The file imports nothing of the testkit so that
// node runs it as it is, from dist/ or (with type stripping) from src/.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, escapeIdentifier } from 'pg';

/** Long enough for a local server, short enough not to slow down a machine that has none. */
const CONNECT_TIMEOUT_MS = 1_500;
const DATABASE_PREFIX = 'rm_test_';
const THIS_FILE = fileURLToPath(import.meta.url);

export interface PostgresDatabase {
  name: string;
  /** The server URL with this database in place of the server URL's own. */
  url: string;
  /** e.g. "15.20" */
  serverVersion: string;
  /** The command that drops this database, for the supervisor to run if this process dies. */
  dropCommand: string[];
  /** Drops the database, ending the connections still open to it. */
  drop(): Promise<void>;
}

/** Why no database could be created: the server did not accept a connection. */
export interface PostgresUnreachable {
  unreachable: string;
}

/**
 * Creates a database with a unique name on the PostgreSQL server of `serverUrl`, or says why the
 * server cannot be reached. Failures after connecting are thrown: the server is there but refuses.
 */
export async function createPostgresDatabase(serverUrl: string): Promise<PostgresDatabase | PostgresUnreachable> {
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    return { unreachable: reasonOf(error) };
  }
  try {
    // lower-case letters, digits and underscores: a name that needs no quoting anywhere
    const name = `${DATABASE_PREFIX}${randomBytes(6).toString('hex')}`;
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    await client.query(`CREATE DATABASE ${escapeIdentifier(name)}`);
    return {
      name,
      url: withDatabase(serverUrl, name),
      // "15.20 (Debian 15.20-0+deb12u1)": the version is the first word
      serverVersion: rows[0]?.server_version.split(' ')[0] ?? 'of unknown version',
      dropCommand: [process.execPath, THIS_FILE, serverUrl, name],
      drop: () => dropPostgresDatabase(serverUrl, name),
    };
  } finally {
    await client.end();
  }
}

export async function dropPostgresDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    // FORCE (PostgreSQL 13+) ends the connections a killed FerretDB may have left behind
    await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // an AggregateError (one refusal per address of "localhost") has only a code
  if (error.message === '' && 'code' in error) return String(error.code);
  return error.message;
}

// not import.meta.main: the supervisor runs this with the node of the test process, which may predate it
if (process.argv[1] === THIS_FILE) {
  const [serverUrl, name] = process.argv.slice(2);
  if (serverUrl === undefined || name === undefined) {
    console.error('usage: node postgres-database.js <server url> <database>');
    process.exitCode = 2;
  } else {
    await dropPostgresDatabase(serverUrl, name);
  }
}
