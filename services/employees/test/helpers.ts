import { jetstreamManager } from '@nats-io/jetstream';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { startBesideHomeBases } from '@rm/home-bases/testing';
import { connectTestNats, recordEvents, type RecordedEvents } from '@rm/testkit';
import { startTenantService } from '@rm/testkit/suites/tenant-service';
import { employeesService } from '../src/app.js';

export { BASE, json } from '@rm/testkit/service-helpers';

/**
 * The employees service as the runtime runs it in production, over a fresh database of the run's
 * servers, with a home-bases service of its own beside it.
 */
export const startEmployees = (variables: Record<string, string> = {}) => startBesideHomeBases('employees', employeesService, variables);

export type EmployeesHarness = Awaited<ReturnType<typeof startEmployees>>;

/** A valid employee body located at an ad-hoc start location. */
export function employeeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: { first_name: 'Ada', last_name: 'Peeters' },
    driver_skills: ['C', 'CE'],
    skills: ['nl', 'fr'],
    start_location: { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' },
    labels: ['night'],
    ...overrides,
  };
}

/**
 * Every event of a tenant on the employees stream from its start, duplicates included. The stream is
 * declared as the service declares it, so that it can be read before a service runs.
 */
export async function recordTenantEvents(tenant: string): Promise<RecordedEvents<EventEnvelope>> {
  const nats = await connectTestNats();
  try {
    await declareServiceStream(await jetstreamManager(nats.nc), 'employees');
  } finally {
    await nats.close();
  }
  return recordEvents<EventEnvelope>(serviceStream('employees').name, `rm.employees.${tenant}.>`);
}

/** The employees service as a fresh tenant sees it, its events recorded: what the suites that read events start. */
export const startTenantEmployees = () =>
  startTenantService({ service: 'employees', start: startEmployees, record: recordTenantEvents, sentinel: { path: '/employee', body: employeeBody() } });
