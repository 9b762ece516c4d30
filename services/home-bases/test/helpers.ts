import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { startService, type RunningService } from '@rm/runtime';
import { recordEvents, startServiceHarness, type RecordedEvents, type ServiceHarness } from '@rm/testkit';
import { startTenantService } from '@rm/testkit/suites/tenant-service';
import { homeBasesService } from '../src/app.js';

export { BASE, json } from '@rm/testkit/service-helpers';

export type HomeBasesHarness = ServiceHarness<RunningService<ReturnType<typeof homeBasesService.collections>, Record<never, never>>>;

/** The home-bases service as the runtime runs it in production, over a fresh database of the run's servers. */
export function startHomeBases(variables: Record<string, string> = {}): Promise<HomeBasesHarness> {
  return startServiceHarness('home-bases', (env) => startService(homeBasesService, { env, listen: false }), variables);
}

/** A valid home base with address information. */
export function homeBaseBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Depot Gent',
    address: { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' },
    plan_group: 'Flanders',
    ...overrides,
  };
}

/** Every event of a tenant on the service's stream from its start (the service must have started: it declares the stream). */
export function recordTenantEvents(tenant: string): Promise<RecordedEvents<EventEnvelope>> {
  return recordEvents<EventEnvelope>(serviceStream('home-bases').name, `rm.home-bases.${tenant}.>`);
}

/** The home-bases service as a fresh tenant sees it, its events recorded: what the suites that read events start. */
export const startTenantHomeBases = () =>
  startTenantService({ service: 'home-bases', start: startHomeBases, record: recordTenantEvents, sentinel: { path: '/home-base', body: homeBaseBody() } });
