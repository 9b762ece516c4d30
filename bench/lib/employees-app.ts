import { startService, type RunningService } from '@rm/runtime';
import { createTestServiceEnv, type TestServiceEnv } from '@rm/testkit';
import { employeesService } from '../../services/employees/dist/app.js';

export interface StartedEmployees {
  service: RunningService<ReturnType<typeof employeesService.collections>, Record<never, never>>;
  env: TestServiceEnv;
  /** Bearer headers of a client of the tenant, valid for the whole run as a client reuses its token. */
  bearer(tenant: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The real employees service as its tests start it (store, relay, maintenance, real token
 * verification against a served key set) on a database of its own; requests go through inject().
 */
export async function startEmployees(databasePrefix: string): Promise<StartedEmployees> {
  const env = await createTestServiceEnv(databasePrefix);
  const service = await startService(employeesService, { env: env.variables, listen: false });
  return {
    service,
    env,
    bearer: (tenant) => env.bearer(tenant, { expiresInSeconds: 3600 }),
    async close() {
      await service.stop();
      await env.close();
    },
  };
}
