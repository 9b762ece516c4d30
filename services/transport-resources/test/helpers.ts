import type { LightMyRequestResponse } from 'fastify';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { homeBasesService } from '@rm/home-bases/service';
import { startService, type RunningService } from '@rm/runtime';
import type { transportResourcesConfigSpec } from '../src/config.js';
import { recordEvents, startServiceHarnessWithHomeBases, type RecordedEvents, type HarnessWithHomeBases } from '@rm/testkit';
import { transportResourcesService } from '../src/app.js';

export const BASE = '/resource-management/v1';

export type TransportResourcesHarness = HarnessWithHomeBases<
  RunningService<ReturnType<typeof transportResourcesService.collections>, typeof transportResourcesConfigSpec>,
  RunningService<ReturnType<typeof homeBasesService.collections>, Record<never, never>>['app']
>;

/**
 * The transport-resources service as the runtime runs it in production, over a fresh database of the run's
 * servers, with a home-bases service of its own beside it.
 */
export function startTransportResources(variables: Record<string, string> = {}): Promise<TransportResourcesHarness> {
  return startServiceHarnessWithHomeBases(
    'transport_resources',
    (env) => startService(transportResourcesService, { env, listen: false }),
    (env) => startService(homeBasesService, { env }),
    variables,
  );
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
