export interface ServerHandle {
  url: string;
  /**
   * How the server was obtained, e.g.
   * "ferretdb (local binary /…/ferretdb) on PostgreSQL 15.20 (database rm_test_…) at 127.0.0.1:40123".
   */
  description: string;
  /**
   * What a started FerretDB keeps its data in, since its own answers do not say: "PostgreSQL 15.20
   * (database rm_test_…)" or "SQLite (…)"; undefined for other servers.
   */
  backend?: string;
  /** Stops the server and removes the data it owns. */
  stop(): Promise<void>;
}

/** A dedicated server that a test can take away and bring back, keeping its port and its data. */
export interface RestartableServerHandle extends ServerHandle {
  /** Terminates the server (as an outage would), keeping its port and data. */
  kill(): Promise<void>;
  /** Starts the server again after kill(), on the same port with the same data. */
  start(): Promise<void>;
  /** kill() then start(). */
  restart(): Promise<void>;
}

export interface NatsServerHandle extends RestartableServerHandle {
  port: number;
  /** The JetStream store directory, kept across kill()/start()/restart(). */
  storeDir: string;
}
