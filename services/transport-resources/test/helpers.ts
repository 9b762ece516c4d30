import type { LightMyRequestResponse } from 'fastify';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { homeBasesService } from '@rm/home-bases/service';
import { startService, type RunningService } from '@rm/runtime';
import type { homeBaseClaimsConfigSpec } from '@rm/service-kit';
import { findFreePort, recordEvents, startCompanionService, startServiceHarness, type RecordedEvents, type ServiceHarness } from '@rm/testkit';
import { transportResourcesService } from '../src/app.js';

export const BASE = '/resource-management/v1';

type RunningHomeBases = RunningService<ReturnType<typeof homeBasesService.collections>, Record<never, never>>;

export type TransportResourcesHarness = ServiceHarness<RunningService<ReturnType<typeof transportResourcesService.collections>, typeof homeBaseClaimsConfigSpec>> & {
  /** The home-bases service beside it, where its writes claim the home bases they name. */
  homeBases: RunningHomeBases['app'];
};

/**
 * The transport-resources service as the runtime runs it in production, over a fresh database of the run's
 * servers, with a home-bases service of its own beside it.
 */
export async function startTransportResources(variables: Record<string, string> = {}): Promise<TransportResourcesHarness> {
  const homeBasesPort = await findFreePort();
  const harness = await startServiceHarness('transport-resources', (env) => startService(transportResourcesService, { env, listen: false }), {
    HOME_BASES_URL: `http://127.0.0.1:${homeBasesPort}${BASE}`,
    ...variables,
  });
  const homeBases = await startCompanionService(harness.env, 'home_bases', homeBasesPort, (env) => startService(homeBasesService, { env }));
  return {
    ...harness,
    homeBases: homeBases.service.app,
    close: async () => {
      await homeBases.close();
      await harness.close();
    },
  };
}

/** Creates home bases in the tenant of the home-bases service beside the harness, so that bodies may name them. */
export async function createHomeBases(harness: TransportResourcesHarness, tenant: string, ...ids: string[]): Promise<void> {
  const headers = await harness.as(tenant);
  for (const id of ids) {
    const response = await harness.homeBases.inject({
      method: 'PUT',
      url: `${BASE}/home-base/${id}`,
      headers,
      payload: { name: `Home base ${id}`, address: { name: id, city: 'Gent', country_code: 'BE' } },
    });
    if (response.statusCode >= 300) throw new Error(`home base ${id} was not created: ${response.statusCode} ${response.body}`);
  }
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
