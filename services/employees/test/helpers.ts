import { jetstreamManager } from '@nats-io/jetstream';
import type { LightMyRequestResponse } from 'fastify';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { homeBasesService } from '@rm/home-bases/service';
import { startService, type RunningService } from '@rm/runtime';
import type { employeesConfigSpec } from '../src/config.js';
import { connectTestNats, recordEvents, startServiceHarnessWithHomeBases, type RecordedEvents, type HarnessWithHomeBases } from '@rm/testkit';
import { employeesService } from '../src/app.js';

export const BASE = '/resource-management/v1';

export type EmployeesHarness = HarnessWithHomeBases<
  RunningService<ReturnType<typeof employeesService.collections>, typeof employeesConfigSpec>,
  RunningService<ReturnType<typeof homeBasesService.collections>, Record<never, never>>['app']
>;

/**
 * The employees service as the runtime runs it in production, over a fresh database of the run's
 * servers, with a home-bases service of its own beside it.
 */
export function startEmployees(variables: Record<string, string> = {}): Promise<EmployeesHarness> {
  return startServiceHarnessWithHomeBases(
    'employees',
    (env) => startService(employeesService, { env, listen: false }),
    (env) => startService(homeBasesService, { env }),
    variables,
  );
}

export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

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
