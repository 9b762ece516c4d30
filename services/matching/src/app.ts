import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { AvailableEmployee, AvailableEmployeePage, ResourceCombination, ResourceCombinationPage } from '@rm/contracts';
import { declareServiceStream, declareStream, publishEvents } from '@rm/bus';
import { defineService } from '@rm/runtime';
import { DEFAULT_EXACT_MAX_NONZEROS } from './domain/exact.js';
import { createMatchingEngine } from './engine.js';
import { INPUT_EVENTS, inputSources, INPUTS_STREAM, partitionSubjects, SERVICE_NAME } from './events.js';
import { convergenceLag, observeTenants, resolveObserver, tenantLabeller } from './metrics.js';
import { createPartitionTables, startPartitionLeases } from './partitions.js';
import { outputRoutes } from './routes/output.routes.js';
import { createInputStore } from './store/inputs.js';
import { createOutputs, toAvailableEmployee, toResourceCombination, type AvailableEmployeeFields, type CombinationFields } from './store/outputs.js';
import { createUnpublishedMarks } from './store/unpublished.js';

const matchingConfigSpec = {
  /** Tenant partitions of the input stream; fixed once it holds events (see INPUTS_STREAM). */
  MATCHING_PARTITIONS: { type: 'int', min: 1, max: 1024, default: 16 },
  /** How long a replica's hold on a partition lasts without renewal. */
  MATCHING_LEASE_MS: { type: 'duration-ms', min: 300, default: 15_000 },
  /** This replica's name among the others (default: host name and a random suffix). */
  MATCHING_REPLICA_ID: { type: 'string', default: '' },
  /** The exact re-solve of a tenant starts once no event came for this long; 0: never. */
  MATCHING_RESOLVE_QUIET_MS: { type: 'duration-ms', min: 0, default: 2_000 },
  /** The exact re-solve's time per location component; past it, the best found is taken if it is better. */
  MATCHING_RESOLVE_TIME_LIMIT_S: { type: 'int', min: 1, max: 3600, default: 60 },
  /** The largest model (nonzeros) of a location component the exact re-solve takes up; larger ones stay with the incremental matcher. */
  MATCHING_EXACT_MAX_NONZEROS: { type: 'int', min: 1, max: 100_000_000, default: DEFAULT_EXACT_MAX_NONZEROS },
  /** A tenant with more inputs (entities of every kind) is not matched here; its inputs are still recorded. */
  MATCHING_TENANT_MAX_INPUTS: { type: 'int', min: 1, max: 100_000_000, default: 60_000 },
} as const;

/**
 * The matching engine: it records the other services' events as its inputs, keeps every tenant's
 * AvailableEmployee snapshots and ResourceCombinations current from them (DESIGN §6), publishes a
 * change event for each, and serves them read-only. Tenants are spread over replicas by partition.
 */
export const matchingService = defineService({
  name: SERVICE_NAME,
  port: 3005,
  config: matchingConfigSpec,
  collections: (store) => ({
    inputs: createInputStore(store),
    outputs: createOutputs(store),
    unpublished: createUnpublishedMarks(store),
    partitions: createPartitionTables(store),
  }),
  routes:
    ({ collections, cursors }) =>
    async (api) => {
      const { availableEmployees, combinations } = collections.outputs;
      await api.register(outputRoutes<AvailableEmployeeFields>(), {
        path: '/available-employee',
        label: 'available employee',
        listProperty: 'available_employees',
        resources: availableEmployees,
        represent: toAvailableEmployee,
        schemas: { Resource: AvailableEmployee, Page: AvailableEmployeePage },
        cursors,
      });
      await api.register(outputRoutes<CombinationFields>(), {
        path: '/resource-combination',
        label: 'resource combination',
        listProperty: 'resource_combinations',
        resources: combinations,
        represent: toResourceCombination,
        schemas: { Resource: ResourceCombination, Page: ResourceCombinationPage },
        cursors,
      });
    },
  async extend({ collections, config, js, jsm, logger, metrics, startConsumer }) {
    const partitions = config.MATCHING_PARTITIONS;
    const publishers = new Set(INPUT_EVENTS.map((events) => events.service));
    for (const publisher of publishers) await declareServiceStream(jsm, publisher, { replicas: config.NATS_STREAM_REPLICAS });
    await declareStream(jsm, { name: INPUTS_STREAM, subjects: [], sources: inputSources(partitions), replicas: config.NATS_STREAM_REPLICAS });
    const quietMs = config.MATCHING_RESOLVE_QUIET_MS;
    const engine = createMatchingEngine({
      inputs: collections.inputs,
      outputs: collections.outputs,
      unpublished: collections.unpublished,
      publish: (events) => publishEvents(js, events),
      logger,
      converged: convergenceLag(metrics),
      maxInputs: config.MATCHING_TENANT_MAX_INPUTS,
      ...(quietMs === 0
        ? {}
        : {
            resolve: {
              quietMs,
              timeLimitSeconds: config.MATCHING_RESOLVE_TIME_LIMIT_S,
              maxNonzeros: config.MATCHING_EXACT_MAX_NONZEROS,
              observe: resolveObserver(metrics),
            },
          }),
    });
    observeTenants(metrics, engine, tenantLabeller(config.CURSOR_SECRET));
    const leases = startPartitionLeases({
      tables: collections.partitions,
      partitions,
      replicaId: config.MATCHING_REPLICA_ID || `${hostname()}-${randomUUID().slice(0, 8)}`,
      leaseMs: config.MATCHING_LEASE_MS,
      logger,
      start: (partition) =>
        startConsumer({
          durable: `matching-p${partition}`,
          entities: INPUT_EVENTS,
          source: { stream: INPUTS_STREAM, filterSubjects: partitionSubjects(partition) },
          // by the batch, in stream order: the same events then give the same combinations (a replay)
          handleBatch: (events) => engine.handleBatch(events, partition),
          // the engine holds each input's version, and records the inputs itself
          versions: 'handler',
        }),
      released: (partition) => engine.release(partition),
    });
    return {
      stop: async () => {
        await leases.stop();
        await engine.close();
      },
    };
  },
});
