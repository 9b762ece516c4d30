// Composition root of the employees service: reads the config, connects to MongoDB and NATS,
// declares its stream, starts the outbox relay and the HTTP server, and shuts down gracefully.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createOutboxRelay, declareServiceStream } from '@rm/bus';
import {
  ConfigError,
  createLogger,
  createTokenVerifier,
  installGracefulShutdown,
  mongoReadiness,
  natsReadiness,
} from '@rm/service-kit';
import { connectMongo, createDocumentLocks, createOutboxStore } from '@rm/store';
import { buildApp } from './app.js';
import { readEmployeesConfig, type EmployeesConfig } from './config.js';
import { SERVICE_NAME } from './events.js';
import { EMPLOYEES_COLLECTION } from './store/employee-repository.js';

async function main(config: EmployeesConfig): Promise<void> {
  const logger = createLogger({ level: config.LOG_LEVEL, name: SERVICE_NAME });
  const mongo = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, logger, appName: SERVICE_NAME });
  const nc = await connectNats({ servers: config.NATS_URL, name: SERVICE_NAME, logger });
  const jsm = await jetstreamManager(nc);
  await declareServiceStream(jsm, SERVICE_NAME, { replicas: config.NATS_STREAM_REPLICAS });

  const locks = createDocumentLocks();
  const relay = createOutboxRelay({
    outbox: createOutboxStore(mongo.db, { collections: [EMPLOYEES_COLLECTION], locks }),
    js: jetstream(nc),
    logger,
  });
  const app = buildApp({
    logger,
    db: mongo.db,
    locks,
    verifyToken: createTokenVerifier({
      jwksUrl: config.AUTH_JWKS_URL,
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
    }),
    readiness: { mongodb: mongoReadiness(mongo.db), nats: natsReadiness(nc, jsm) },
    onWrite: () => relay.wake(),
    config: {
      basePath: config.PUBLIC_BASE_PATH,
      bodyLimit: config.BODY_LIMIT_BYTES,
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      readinessTimeout: config.READINESS_TIMEOUT_MS,
      cursorSecret: config.CURSOR_SECRET,
    },
  });

  installGracefulShutdown({
    app,
    logger,
    graceMs: config.SHUTDOWN_GRACE_MS,
    delayMs: config.SHUTDOWN_DELAY_MS,
    steps: [
      { name: 'outbox relay', run: () => relay.stop() },
      { name: 'nats', run: () => nc.drain() },
      { name: 'mongodb', run: () => mongo.client.close() },
    ],
    onTimeout: () => process.exit(1),
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  relay.start();
}

try {
  await main(readEmployeesConfig());
} catch (error) {
  // The logger may not exist yet (bad config): say what is wrong plainly and stop.
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
