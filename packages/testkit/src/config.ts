import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Everything the testkit reads from the environment, read in one place. */
export interface TestkitConfig {
  /** MONGO_URL: a running MongoDB-compatible server to use instead of starting one. */
  mongoUrl: string | undefined;
  /** NATS_URL: a running nats-server with JetStream to use instead of starting one. */
  natsUrl: string | undefined;
  /**
   * RM_POSTGRES_URL: the PostgreSQL server on which a started FerretDB keeps its data, in a database of
   * its own; FerretDB falls back to SQLite when it does not answer.
   */
  postgresUrl: string;
  /** Where scripts/ensure-servers.sh installs ferretdb and nats-server. */
  serversBinDir: string;
  /** The directories of PATH, in order. */
  pathDirs: string[];
}

/** The per-user cache that scripts/ensure-servers.sh fills, shared by every clone of the repository. */
export function defaultServersDir(homeDir: string = homedir()): string {
  return join(homeDir, '.cache', 'resource-management', 'servers');
}

/** The local PostgreSQL every developer's machine and CI runs (trust authentication). */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export function loadTestkitConfig(env: NodeJS.ProcessEnv = process.env): TestkitConfig {
  const serversDir = nonEmpty(env.RM_SERVERS_DIR) ?? defaultServersDir();
  return {
    mongoUrl: nonEmpty(env.MONGO_URL),
    natsUrl: nonEmpty(env.NATS_URL),
    postgresUrl: nonEmpty(env.RM_POSTGRES_URL) ?? DEFAULT_POSTGRES_URL,
    serversBinDir: join(serversDir, 'bin'),
    pathDirs: (env.PATH ?? '').split(delimiter).filter((dir) => dir !== ''),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
