import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { AvailableEmployee, AvailableEmployeePage, ResourceCombination, ResourceCombinationPage } from '@rm/contracts';
import { declareServiceStream, declareStream, publishEvents } from '@rm/bus';
import { defineService } from '@rm/runtime';
import { matchingConfigSpec } from './config.js';
import { createMatchingEngine } from './engine.js';
import { INPUT_EVENTS, inputSources, INPUTS_STREAM, partitionSubjects, SERVICE_NAME } from './events.js';
import { convergenceLag, observeTenants, resolveObserver, tenantLabeller } from './metrics.js';
import { createPartitionTables, startPartitionLeases } from './partitions.js';
import { candidatesRoutes } from './routes/candidates.routes.js';
import { outputRoutes } from './routes/output.routes.js';
import { createInputStore } from './store/inputs.js';
import { createOutputs, toAvailableEmployee, toResourceCombination, type AvailableEmployeeFields, type CombinationFields } from './store/outputs.js';
import { createUnpublishedMarks } from './store/unpublished.js';

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
      await api.register(candidatesRoutes, { inputs: collections.inputs, outputs: collections.outputs });
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
