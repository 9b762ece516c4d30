import { jetstreamManager } from '@nats-io/jetstream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { startService, type RunningService } from '@rm/runtime';
import { connectTestNats, createTestServiceEnv, recordEvents, type RecordedEvents, type TestServiceEnv } from '@rm/testkit';
import { employeesService } from '../src/app.js';

export const BASE = '/resource-management/v1';

export interface EmployeesHarness {
  service: RunningService<ReturnType<typeof employeesService.collections>, Record<never, never>>;
  app: FastifyInstance;
  env: TestServiceEnv;
  /** Committed writes so far: each hands its events to the relay. */
  writes(): number;
  /** A bearer header for a client of the tenant. */
  as(tenant: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The employees service as the runtime runs it in production (store, relay, maintenance, the same
 * routes), over a fresh database of the run's servers. 127.0.0.1 stands for the gateway, whose
 * forwarded headers the service believes.
 */
export async function startEmployees(variables: Record<string, string> = {}): Promise<EmployeesHarness> {
  const env = await createTestServiceEnv('employees', { TRUST_PROXY: '127.0.0.1', ...variables });
  const service = await startService(employeesService, { env: env.variables, listen: false });
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
