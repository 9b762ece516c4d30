import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { startBesideHomeBases } from '@rm/home-bases/testing';
import { recordEvents, type RecordedEvents } from '@rm/testkit';
import { startTenantService } from '@rm/testkit/suites/tenant-service';
import { transportResourcesService } from '../src/app.js';

export { BASE, json } from '@rm/testkit/service-helpers';

/**
 * The transport-resources service as the runtime runs it in production, over a fresh database of the run's
 * servers, with a home-bases service of its own beside it.
 */
export const startTransportResources = (variables: Record<string, string> = {}) =>
  startBesideHomeBases('transport_resources', transportResourcesService, variables);

export type TransportResourcesHarness = Awaited<ReturnType<typeof startTransportResources>>;

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

/** The transport-resources service as a fresh tenant sees it, its events recorded: what the suites that read events start. */
export const startTenantTransportResources = () =>
  startTenantService({ service: 'transport-resources', start: startTransportResources, record: recordTenantEvents, sentinel: { path: '/transport-resource', body: truckBody() } });
