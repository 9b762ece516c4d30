import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Tracer } from '@opentelemetry/api';
import type { FastifyPluginAsync } from 'fastify';
import type { Db } from 'mongodb';
import type { Registry } from 'prom-client';
import type { EntityEvents } from '@rm/contracts';
import type { ConsumerRunner, EventHandling, IgnoredEvents } from '@rm/bus';
import type { Config, ConfigSpec, CursorCodec, Logger, ReadinessCheck, serviceConfigSpec, TokenVerifier } from '@rm/service-kit';
import type { Store } from '@rm/store';

/** The variables every service reads (service-kit's serviceConfigSpec). */
export type CommonConfigSpec = ReturnType<typeof serviceConfigSpec>;

/** A service's whole configuration: the common variables and its own. */
export type ServiceConfig<Spec extends ConfigSpec> = Config<CommonConfigSpec> & Config<Spec>;

/** What a service's routes and consumers are built with. */
export interface ServiceContext<Collections, Spec extends ConfigSpec> {
  collections: Collections;
  config: ServiceConfig<Spec>;
  /** Signs and checks paging cursors (CURSOR_SECRET). */
  cursors: CursorCodec;
  logger: Logger;
  /** The service's tracer (a no-op when tracing is off), for spans of its own, such as the gateway's calls to the owners. */
  tracer: Tracer;
}

/**
 * The connections themselves, for a service whose state is not entities with events (the gateway's
 * signing keys and clients, its shared rate-limit state). Entity services never need them.
 */
export interface ServiceConnections {
  db: Db;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /**
   * Starts a consumer the way the definition's own are started, for an extension that starts and stops
   * consumers itself (the matching engine runs one per tenant partition it holds).
   */
  startConsumer(consumer: ConsumerDefinition): Promise<ConsumerRunner>;
  /** The service's metrics registry (served at /metrics), for an extension's own metrics. */
  metrics: Registry;
}

/** What `extend` adds to the service; each part is optional. */
export interface ServiceExtension {
  /** Verifies bearer tokens instead of the issuer's key set at AUTH_JWKS_URL (the gateway is the issuer). */
  verifyToken?: TokenVerifier;
  /** Routes under PUBLIC_BASE_PATH behind authentication, beside the definition's own. */
  routes?: FastifyPluginAsync;
  /** Routes at the root without authentication: the token endpoint, the key set, metadata, docs. */
  publicRoutes?: FastifyPluginAsync;
  /** Checks /readyz runs beside MongoDB and NATS. */
  readiness?: Record<string, ReadinessCheck>;
  /** Stops what `extend` started; runs after HTTP has closed and before the connections do. */
  stop?(): Promise<void>;
}

/**
 * A durable consumer of events, run by the consumer runner (@rm/bus) with its ledger in the service's
 * database: it applies events one at a time per entity (`handle`) or by the batch (`handleBatch`).
 */
export type ConsumerDefinition = EventHandling & ConsumerSettings;

export interface ConsumerSettings {
  /**
   * `<service>-<what it keeps>`, unique in the service; the durable on the publisher's stream adds
   * the database's name (`home-bases-references-employees-home_bases`), where its ledger is.
   */
  durable: string;
  /** The entities whose events it receives, all of one publishing service (its stream) unless `source` says where. */
  entities: readonly EntityEvents[];
  /** Reads these subjects of this stream instead of the publisher's stream (a stream of the service's own that sources it). */
  source?: { stream: string; filterSubjects: string[] };
  /** Attempts before an event is dead-lettered (default 5). */
  maxDeliver?: number;
  /** Redelivery delays after failed attempts, the last one repeating (default 1 s, 5 s, 30 s). */
  nakDelaysMs?: number[];
  /** Entities handled side by side (default 16). */
  concurrency?: number;
  /** Most messages in one batch (default 500). */
  batchSize?: number;
  /**
   * 'ledger' (default): the runner skips events not newer than the version applied of their entity,
   * kept in the service's database. 'handler': the handler keeps the versions itself (the matching
   * engine's inputs), so the runner reads and writes no ledger and hands it every event.
   */
  versions?: 'ledger' | 'handler';
  /** Events the handler would do nothing with, early or late: acknowledged without a ledger read or write (IgnoredEvents). */
  ignores?: IgnoredEvents;
}

/**
 * Everything that makes one service: the runtime connects, wires and runs it the same way for every
 * service (startService), in production (runMain) and in tests.
 */
export interface ServiceDefinition<Collections, Spec extends ConfigSpec = Record<never, never>> {
  /** `employees`: its logger's name, its stream (`RM_EMPLOYEES` over `rm.employees.>`), its default database. */
  name: string;
  /** Default PORT. */
  port: number;
  /** The service's own variables, beside the common ones. */
  config?: Spec;
  /** Creates the service's collections in its store; the store's relay then knows every one. */
  collections(store: Store): Collections;
  /** The service's routes, registered under PUBLIC_BASE_PATH behind authentication. */
  routes?(context: ServiceContext<Collections, Spec>): FastifyPluginAsync;
  /** The events it consumes. */
  consumers?(context: ServiceContext<Collections, Spec>): ConsumerDefinition[];
  /** Starts what the service needs beyond collections, routes and consumers (the gateway's key ring and guard). */
  extend?(context: ServiceContext<Collections, Spec> & ServiceConnections): Promise<ServiceExtension>;
}

/** Declares a service (only for type inference: the definition is used as it is). */
export function defineService<Collections, Spec extends ConfigSpec = Record<never, never>>(
  definition: ServiceDefinition<Collections, Spec>,
): ServiceDefinition<Collections, Spec> {
  return definition;
}
