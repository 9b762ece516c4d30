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

export interface NatsServerHandle extends ServerHandle {
  port: number;
  /** The JetStream store directory, kept across kill()/start()/restart(). */
  storeDir: string;
  /** Terminates the server (as an outage would), keeping its port and store directory. */
  kill(): Promise<void>;
  /** Starts the server again after kill(), on the same port with the same JetStream data. */
  start(): Promise<void>;
  /** kill() then start(). */
  restart(): Promise<void>;
}
