/** A server process or container did not start or did not accept connections in time. */
export class ServerStartError extends Error {
  readonly code = 'TESTKIT_SERVER_START';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ServerStartError';
  }
}

/** No way to get a server: no URL in the environment, no local binary, no Docker engine. */
export class NoServerAvailableError extends Error {
  readonly code = 'TESTKIT_NO_SERVER';
  constructor(server: string, tried: string) {
    super(
      `no ${server} for the tests: ${tried}. ` +
        'Run `bash scripts/ensure-servers.sh` at the repository root to install the pinned servers ' +
        '(needs Go), or set MONGO_URL and NATS_URL to running servers.',
    );
    this.name = 'NoServerAvailableError';
  }
}

/** testServers() was called outside a run that went through the global setup or rm-with-servers. */
export class TestServersMissingError extends Error {
  readonly code = 'TESTKIT_SERVERS_MISSING';
  constructor(missing: string[]) {
    super(
      `${missing.join(' and ')} not set: add globalSetup '@rm/testkit/global-setup' to vitest.config.ts, ` +
        'or run the tests through `rm-with-servers`, or set the variables to running servers.',
    );
    this.name = 'TestServersMissingError';
  }
}
