import { jetstreamManager } from '@nats-io/jetstream';
import type { LightMyRequestResponse } from 'fastify';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { homeBasesService } from '@rm/home-bases/service';
import { startService, type RunningService } from '@rm/runtime';
import type { homeBaseClaimsConfigSpec } from '@rm/service-kit';
import { connectTestNats, findFreePort, recordEvents, startCompanionService, startServiceHarness, type RecordedEvents, type ServiceHarness } from '@rm/testkit';
import { employeesService } from '../src/app.js';

export const BASE = '/resource-management/v1';

type RunningHomeBases = RunningService<ReturnType<typeof homeBasesService.collections>, Record<never, never>>;

export type EmployeesHarness = ServiceHarness<RunningService<ReturnType<typeof employeesService.collections>, typeof homeBaseClaimsConfigSpec>> & {
  /** The home-bases service beside it, where its writes claim the home bases they name. */
  homeBases: RunningHomeBases['app'];
};

/**
 * The employees service as the runtime runs it in production, over a fresh database of the run's
 * servers, with a home-bases service of its own beside it.
 */
export async function startEmployees(variables: Record<string, string> = {}): Promise<EmployeesHarness> {
  const homeBasesPort = await findFreePort();
  const harness = await startServiceHarness('employees', (env) => startService(employeesService, { env, listen: false }), {
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
export async function createHomeBases(harness: EmployeesHarness, tenant: string, ...ids: string[]): Promise<void> {
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
