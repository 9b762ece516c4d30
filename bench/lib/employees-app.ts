import { startService, type RunningService } from '@rm/runtime';
import type { homeBaseClaimsConfigSpec } from '@rm/service-kit/resources';
import { findFreePort, startCompanionService, type TestServiceEnv } from '@rm/testkit';
import { employeesService } from '@rm/employees/service';
import { homeBasesService } from '@rm/home-bases/service';
import { benchServiceEnv } from './service-env.ts';

export interface StartedEmployees {
  service: RunningService<ReturnType<typeof employeesService.collections>, typeof homeBaseClaimsConfigSpec>;
  /** The home-bases service beside it, where its writes claim the home bases they name. */
  homeBases: RunningService<ReturnType<typeof homeBasesService.collections>, Record<never, never>>;
  env: TestServiceEnv;
  /** Bearer headers of a client of the tenant, valid for the whole run as a client reuses its token. */
  bearer(tenant: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The real employees service as its tests start it (store, relay, maintenance, real token
 * verification against a served key set, a home-bases service beside it listening on a port) on a
 * database of its own, with any other settings in `overrides`; requests go through inject().
 */
export async function startEmployees(databasePrefix: string, overrides: Record<string, string> = {}): Promise<StartedEmployees> {
  const homeBasesPort = await findFreePort();
  const env = await benchServiceEnv(databasePrefix, { HOME_BASES_URL: `http://127.0.0.1:${homeBasesPort}/resource-management/v1`, ...overrides });
  const service = await startService(employeesService, { env: env.variables, listen: false });
  const homeBases = await startCompanionService(env, `${databasePrefix}_home_bases`, homeBasesPort, (variables) =>
    startService(homeBasesService, { env: variables }),
  );
  return {
    service,
    homeBases: homeBases.service,
    env,
    bearer: (tenant) => env.bearer(tenant, { expiresInSeconds: 3600 }),
    async close() {
      await homeBases.close();
      await service.stop();
      await env.close();
    },
  };
}

/** One page of `GET /employee` through inject(): how many employees it held, and the cursor of the page after it. */
export async function employeePage(
  started: StartedEmployees,
  headers: Record<string, string>,
  limit: number,
  cursor: string | undefined,
): Promise<{ items: number; next: string | undefined }> {
  const query = `limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
  const response = await started.service.app.inject({ method: 'GET', url: `/resource-management/v1/employee?${query}`, headers });
  if (response.statusCode !== 200) throw new Error(`GET answered ${response.statusCode}: ${response.body}`);
  const page = JSON.parse(response.body) as { employees: unknown[]; cursors: { next?: string } };
  return { items: page.employees.length, next: page.cursors.next };
}
