import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Tracer } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { createEventValidator, entitySubjects, serviceStream, type AppliedVersions } from '@rm/contracts';
import { connectNats, createConsumerRunner, createOutboxRelay, declareServiceStream, natsAccess, type ConsumerRunner } from '@rm/bus';
import type { DestinationStream } from 'pino';
import {
  createCursorCodec,
  createLogger,
  createMetricsRegistry,
  createService,
  createTokenVerifier,
  pollTokenRevocations,
  REVOCATIONS_PATH,
  installGracefulShutdown,
  mongoReadiness,
  natsReadiness,
  readConfig,
  serviceConfigSpec,
  upGauge,
  type Config,
  type ConfigSpec,
  type Logger,
  type ShutdownOutcome,
  type ShutdownStep,
} from '@rm/service-kit';
import { connectMongo, createStore, isOutage, type Store } from '@rm/store';
import { startMaintenance } from './maintenance-loop.js';
import { startTracing, type TracingOptions } from './tracing.js';
import { observeConsumers, observeOutbox, SCRAPE_PROBE_TIMEOUT_MS, type ConsumerObservation } from './metrics.js';
import type { CommonConfigSpec, ConsumerDefinition, ServiceConfig, ServiceContext, ServiceDefinition } from './service-definition.js';

export interface StartServiceOptions {
  /** Where the configuration is read from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Listen on HOST:PORT (default), or only get ready: tests call `app.inject()`. */
  listen?: boolean;
  /** Signals that start the graceful shutdown (runMain: SIGTERM and SIGINT; tests: none). */
  signals?: NodeJS.Signals[];
  /** Called when the shutdown outlives SHUTDOWN_GRACE_MS (runMain exits). */
  onShutdownTimeout?: () => void;
  /** Where log lines go (default stdout). */
  logDestination?: DestinationStream;
  /** Tracing without OTEL_EXPORTER_OTLP_ENDPOINT: tests pass `{ spanProcessor: new SimpleSpanProcessor(new InMemorySpanExporter()) }`. */
  tracing?: TracingOptions;
  /** The version rm_build_info shows unless SERVICE_VERSION says otherwise (runMain: the service package's). */
  version?: string;
}

export interface RunningService<Collections, Spec extends ConfigSpec> {
  app: FastifyInstance;
  store: Store;
  collections: Collections;
  config: ServiceConfig<Spec>;
  /**
   * The graceful shutdown: HTTP, the extension's stop, consumers, maintenance, relay, NATS (drained), MongoDB, in that
   * order; then the spans still buffered.
   */
  stop(reason?: string): Promise<ShutdownOutcome>;
}

const CONSUMER_DEFAULTS = { maxDeliver: 5, nakDelaysMs: [1_000, 5_000, 30_000] };

/**
 * Runs a service from its definition: reads and checks the configuration, connects to MongoDB and
 * NATS (both with retry), declares the service's stream, creates its store and collections, starts
 * the outbox relay, its consumers and the store's maintenance, builds the HTTP app and listens. What
 * was opened before a failure is closed again.
 */
export async function startService<Collections, Spec extends ConfigSpec>(
  definition: ServiceDefinition<Collections, Spec>,
  options: StartServiceOptions = {},
): Promise<RunningService<Collections, Spec>> {
  const { env = process.env, listen = true, signals = [], onShutdownTimeout = () => undefined, logDestination, version } = options;
  const defaults = { PORT: definition.port, MONGO_DB: definition.name.replaceAll('-', '_'), NATS_USER: definition.name, SERVICE_VERSION: version };
  const spec = { ...serviceConfigSpec(defaults), ...definition.config };
  const config = readConfig(spec, env) as ServiceConfig<Spec>;
  // the runtime reads only the common variables: their types do not depend on the service's own
  const settings: Config<CommonConfigSpec> = config;
  const logger = createLogger({ level: settings.LOG_LEVEL, name: definition.name, ...(logDestination === undefined ? {} : { destination: logDestination }) });
  const retry = { attempts: settings.CONNECT_ATTEMPTS, retryDelayMs: settings.CONNECT_RETRY_DELAY_MS };
  // what is open so far, in the order it closes in: the shutdown's steps once the app exists
  const opened: ShutdownStep[] = [];
  let stop: ((reason?: string) => Promise<ShutdownOutcome>) | undefined;
  try {
    const { tracer, stop: stopTracing } = startTracing({
      serviceName: settings.OTEL_SERVICE_NAME ?? definition.name,
      endpoint: settings.OTEL_EXPORTER_OTLP_ENDPOINT,
      ...options.tracing,
    });
    // opened first, closed last: what the other steps do while closing is still traced
    if (stopTracing !== undefined) opened.unshift({ name: 'tracing', run: stopTracing });
    const mongo = await connectMongo({
      url: settings.MONGO_URL,
      dbName: settings.MONGO_DB,
      logger,
      appName: definition.name,
      operationTimeoutMs: settings.MONGO_OPERATION_TIMEOUT_MS,
      maxPoolSize: settings.MONGO_MAX_POOL_SIZE,
      ...retry,
    });
    opened.unshift({ name: 'mongodb', run: () => mongo.client.close() });
    const nc = await connectNats({ servers: settings.NATS_URL, access: natsAccess(settings), name: definition.name, logger, ...retry });
    opened.unshift({ name: 'nats', run: () => nc.drain() });
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    // the service's own registry, served at /metrics; probes answer within a timeout, so a scrape never hangs
    const metrics = createMetricsRegistry({ service: definition.name, version: settings.SERVICE_VERSION });
    const probe = { registry: metrics, timeoutMs: SCRAPE_PROBE_TIMEOUT_MS };
    upGauge({ ...probe, name: 'rm_mongodb_up', help: 'Whether MongoDB answers a ping (1) or not (0)', check: mongoReadiness(mongo.db) });
    upGauge({ ...probe, name: 'rm_nats_up', help: 'Whether NATS is connected and answers (1) or not (0)', check: natsReadiness(nc) });
    const observation = observeConsumers(metrics, jsm);
    const stream = await declareServiceStream(jsm, definition.name, { replicas: settings.NATS_STREAM_REPLICAS });

    const store = createStore(mongo.db, {
      // what the stream and the server both accept (a stream without a limit says -1)
      maxEventBytes: Math.min(...[stream.config.max_msg_size, nc.info?.max_payload ?? 0].filter((limit) => limit > 0)),
    });
    const collections = definition.collections(store);
    await store.declareIndexes();
    const cursors = createCursorCodec(settings.CURSOR_SECRET);
    const context: ServiceContext<Collections, Spec> = { collections, config, cursors, logger, tracer };

    const relay = createOutboxRelay({ outbox: store.outbox, js, logger, tracer });
    relay.start();
    observeOutbox(metrics, relay);
    opened.unshift({ name: 'outbox relay', run: () => relay.stop() });
    const maintenance = startMaintenance(store, settings.MAINTENANCE_INTERVAL_MS, logger);
    opened.unshift({ name: 'maintenance', run: () => maintenance.stop() });
    // registered before the first starts: a failed start stops those that had started
    const consumers: ConsumerRunner[] = [];
    opened.unshift({ name: 'consumers', run: async () => void (await Promise.all(consumers.map((runner) => runner.stop()))) });
    const parts = { js, jsm, store, logger, tracer, replicas: settings.NATS_STREAM_REPLICAS, database: settings.MONGO_DB, observation };
    for (const consumer of definition.consumers?.(context) ?? []) consumers.push(await startConsumer(consumer, parts));
    const connections = { db: mongo.db, nc, js, jsm, startConsumer: (consumer: ConsumerDefinition) => startConsumer(consumer, parts) };
    const extension = (await definition.extend?.({ ...context, ...connections, metrics })) ?? {};
    if (extension.stop !== undefined) opened.unshift({ name: 'extension', run: extension.stop });
    const ownRoutes = definition.routes?.(context);
    const verifyToken = extension.verifyToken ?? verifierOfIssuer(settings, logger, opened);

    const app = createService({
      logger,
      tracer,
      verifyToken,
      readiness: {
        mongodb: mongoReadiness(mongo.db),
        nats: natsReadiness(nc, jsm),
        ...(consumers.length > 0 ? { consumers: async () => void (await Promise.all(consumers.map((runner) => runner.readiness()))) } : {}),
        ...extension.readiness,
      },
      basePath: settings.PUBLIC_BASE_PATH,
      bodyLimit: settings.BODY_LIMIT_BYTES,
      requestTimeout: settings.REQUEST_TIMEOUT_MS,
      readinessTimeout: settings.READINESS_TIMEOUT_MS,
      trustProxy: settings.TRUST_PROXY,
      routes: async (api) => {
        if (ownRoutes !== undefined) await api.register(ownRoutes);
        if (extension.routes !== undefined) await api.register(extension.routes);
      },
      ...(extension.publicRoutes === undefined ? {} : { publicRoutes: extension.publicRoutes }),
      metrics,
    });
    // closes the HTTP server first, then the steps in order
    stop = installGracefulShutdown({
      app,
      logger,
      graceMs: settings.SHUTDOWN_GRACE_MS,
      delayMs: settings.SHUTDOWN_DELAY_MS,
      steps: opened,
      signals,
      onTimeout: onShutdownTimeout,
    });
    if (listen) await app.listen({ host: settings.HOST, port: settings.PORT });
    else await app.ready();
    return { app, store, collections, config, stop };
  } catch (error) {
    if (stop !== undefined) await stop('start failed');
    else for (const step of opened) await step.run().catch((err: unknown) => logger.warn({ err, step: step.name }, 'closing after a failed start failed'));
    throw error;
  }
}

interface ConsumerParts {
  /** The database holding the consumer's ledger. */
  database: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  store: Store;
  logger: Logger;
  tracer: Tracer;
  replicas: number;
  observation: ConsumerObservation;
}

/**
 * Starts one consumer on its publisher's stream, declaring the stream too, so that start order does not
 * matter; or on the stream its `source` names, which its service has declared.
 */
async function startConsumer(consumer: ConsumerDefinition, parts: ConsumerParts): Promise<ConsumerRunner> {
  const { database, js, jsm, store, logger, tracer, replicas, observation } = parts;
  const source = consumer.source ?? (await publisherSource(consumer, jsm, replicas));
  // A durable's position belongs with the ledger in one database: two deployments (or test services)
  // on one NATS server, each with a database of its own, must never share one and split its events.
  const durable = `${consumer.durable}-${database}`;
  // labelled by the definition's durable: the same series whatever the database
  const observed = observation.track(consumer.durable, source.stream, durable);
  const runner = createConsumerRunner({
    js,
    stream: source.stream,
    durable,
    filterSubjects: source.filterSubjects,
    logger,
    tracer,
    ...(consumer.handleBatch === undefined ? { handle: consumer.handle } : { handleBatch: consumer.handleBatch }),
    applied: consumer.versions === 'handler' ? keptByHandler(store) : store.appliedVersions(consumer.durable),
    ...(consumer.ignores === undefined ? {} : { ignores: consumer.ignores }),
    // what arrives is checked against the contracts of the entities the consumer asked for
    validate: createEventValidator(consumer.entities),
    isOutage,
    maxDeliver: consumer.maxDeliver ?? CONSUMER_DEFAULTS.maxDeliver,
    nakDelaysMs: consumer.nakDelaysMs ?? CONSUMER_DEFAULTS.nakDelaysMs,
    ...(consumer.concurrency === undefined ? {} : { concurrency: consumer.concurrency }),
    ...(consumer.batchSize === undefined ? {} : { batchSize: consumer.batchSize }),
    metrics: observed.metrics,
  });
  try {
    await runner.start();
  } catch (error) {
    observed.forget();
    throw error;
  }
  return {
    ...runner,
    stop: async () => {
      observed.forget();
      await runner.stop();
    },
  };
}

/**
 * A service's verifier of the issuer's tokens: the issuer's key set (AUTH_JWKS_URL) and its list of
 * tokens revoked early, fetched every AUTH_REVOCATIONS_REFRESH_MS until the service stops.
 */
function verifierOfIssuer(settings: Config<CommonConfigSpec>, logger: Logger, opened: ShutdownStep[]) {
  const revocations = pollTokenRevocations({
    url: settings.AUTH_REVOCATIONS_URL ?? new URL(REVOCATIONS_PATH, settings.AUTH_JWKS_URL).href,
    refreshMs: settings.AUTH_REVOCATIONS_REFRESH_MS,
    logger,
  });
  opened.unshift({ name: 'token revocations', run: async () => revocations.stop() });
  return createTokenVerifier({ jwksUrl: settings.AUTH_JWKS_URL, issuer: settings.AUTH_ISSUER, audience: settings.AUTH_AUDIENCE, revocations });
}

/** No ledger (ConsumerSettings.versions 'handler'): every event is new to the runner; the probe asks the database. */
function keptByHandler(store: Store): AppliedVersions {
  return {
    read: async () => new Map(),
    record: async () => undefined,
    ping: async () => void (await store.db.command({ ping: 1 })),
  };
}

async function publisherSource(consumer: ConsumerDefinition, jsm: JetStreamManager, replicas: number): Promise<{ stream: string; filterSubjects: string[] }> {
  const publishers = new Set(consumer.entities.map((entity) => entity.service));
  const [publisher] = publishers;
  if (publisher === undefined || publishers.size > 1) {
    throw new TypeError(`consumer ${consumer.durable} must name the entities of exactly one publishing service`);
  }
  await declareServiceStream(jsm, publisher, { replicas });
  return { stream: serviceStream(publisher).name, filterSubjects: consumer.entities.map(entitySubjects) };
}
