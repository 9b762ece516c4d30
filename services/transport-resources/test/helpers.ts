import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { startService, type RunningService } from '@rm/runtime';
import { createTestServiceEnv, recordEvents, type RecordedEvents, type TestServiceEnv } from '@rm/testkit';
import { transportResourcesService } from '../src/app.js';

export const BASE = '/resource-management/v1';

export interface TransportResourcesHarness {
  service: RunningService<ReturnType<typeof transportResourcesService.collections>, Record<never, never>>;
  app: FastifyInstance;
  env: TestServiceEnv;
  /** Committed writes so far: each hands its events to the relay. */
  writes(): number;
  /** A bearer header for a client of the tenant. */
  as(tenant: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The transport-resources service as the runtime runs it in production (store, relay, maintenance,
 * the same routes), over a fresh database of the run's servers. 127.0.0.1 stands for the gateway,
 * whose forwarded headers the service believes.
 */
export async function startTransportResources(variables: Record<string, string> = {}): Promise<TransportResourcesHarness> {
  const env = await createTestServiceEnv('transport-resources', { TRUST_PROXY: '127.0.0.1', ...variables });
  const service = await startService(transportResourcesService, { env: env.variables, listen: false });
  let writes = 0;
  service.store.outbox.onCommit(() => {
    writes += 1;
  });
  return {
    service,
    app: service.app,
    env,
    writes: () => writes,
    as: (tenant) => env.bearer(tenant),
    close: async () => {
      await service.stop();
      await env.close();
    },
  };
}

export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

/** A valid truck located at an ad-hoc start location. */
export function truckBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'TRUCK',
    license_plate: '1-ABC-123',
    requirements: ['CE'],
    capabilities: ['cooling'],
    capacities: [{ type: 'pallets', value: 33 }],
    start_location: { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' },
    ...overrides,
  };
}

/** Every event of a tenant on the service's stream from its start (the service must have started: it declares the stream). */
export function recordTenantEvents(tenant: string): Promise<RecordedEvents<EventEnvelope>> {
  return recordEvents<EventEnvelope>(serviceStream('transport-resources').name, `rm.transport-resources.${tenant}.>`);
}
