// Deployments: what keeping deployments apart costs (holding each resource's calendar, committing,
// reconciling), through the deployments service's PUT, against the repository put() of the same
// deployment, which checks nothing.
import { randomUUID } from 'node:crypto';
import type { DeploymentFields, EventEnvelope } from '@rm/contracts';
import { startService } from '@rm/runtime';
import { findFreePort, startCompanionService } from '@rm/testkit';
import { deploymentsService } from '@rm/deployments/service';
import { homeBasesService } from '@rm/home-bases/service';
import type { Bench, BenchContext } from './lib/bench.ts';
import { printTable, type ReportRow } from './lib/report.ts';
import { measureSeries, warmUp } from './lib/series.ts';
import { benchServiceEnv } from './lib/service-env.ts';

const BASE = '/resource-management/v1';
const TENANT = 'bench-deployments';
const PUT_OPS = 200;
const WARM_UP_OPS = 20;
const IN_FLIGHT = [1, 16];
/** Each deployment takes an employee and two trucks of its own: no conflicts, only the protocol's cost. */
const TRUCKS_PER_DEPLOYMENT = 2;
const TITLE = 'Deployments: PUT /deployment/{id} (calendars held, committed, reconciled) vs repository put()';

export const deploymentsBench: Bench = {
  name: 'deployments',
  async run(context) {
    const service = await startDeployments();
    try {
      const rows: ReportRow[] = [];
      await comparePuts(context, service, rows);
      printTable(TITLE, rows);
    } finally {
      await service.close();
    }
  },
};

type Started = Awaited<ReturnType<typeof startDeployments>>;

/**
 * The deployments service as its tests start it, with the home-bases service it calls beside it. Its
 * employees and trucks are made known as their events would (known()): their owners, which it would
 * ask about one it does not know, are never asked, so nobody answers at their addresses.
 */
async function startDeployments() {
  const homeBasesPort = await findFreePort();
  const nobody = `http://127.0.0.1:9${BASE}`;
  const env = await benchServiceEnv('bench_deployments', {
    HOME_BASES_URL: `http://127.0.0.1:${homeBasesPort}${BASE}`,
    EMPLOYEES_URL: nobody,
    TRANSPORT_RESOURCES_URL: nobody,
  });
  const service = await startService(deploymentsService, { env: env.variables, listen: false });
  const homeBases = await startCompanionService(env, 'bench_deployments_home_bases', homeBasesPort, (variables) =>
    startService(homeBasesService, { env: variables }),
  );
  return {
    service,
    headers: await env.bearer(TENANT, { expiresInSeconds: 3600 }),
    async close() {
      await homeBases.close();
      await service.stop();
      await env.close();
    },
  };
}

/** Makes an employee or a truck known, as its owner's event would. */
function known(service: Started['service'], entity: 'employee' | 'transport-resource', id: string): Promise<void> {
  const occurred_at = new Date().toISOString();
  const type = `${entity}.created`;
  const event: EventEnvelope = { id: randomUUID(), type, tenant: TENANT, entity_id: id, version: 1, occurred_at, data: {} };
  return service.collections.known.apply(event, entity);
}

function deployment(prefix: string, index: number): DeploymentFields {
  const start = Date.UTC(2030, 0, 1) + index * 3_600_000;
  return {
    employee_id: `${prefix}-e-${index}`,
    transport_resource_ids: Array.from({ length: TRUCKS_PER_DEPLOYMENT }, (_, n) => `${prefix}-t-${index}-${n}`),
    start: { at: new Date(start).toISOString().replace('.000Z', 'Z'), location: { address: { name: 'Depot Gent' } } },
    end: { at: new Date(start + 8 * 3_600_000).toISOString().replace('.000Z', 'Z') },
  };
}

async function comparePuts(context: BenchContext, started: Started, rows: ReportRow[]) {
  const { service, headers } = started;
  const prepare = async (prefix: string, count: number) => {
    for (let index = 0; index < count; index += 1) {
      const fields = deployment(prefix, index);
      await known(service, 'employee', fields.employee_id);
      for (const truck of fields.transport_resource_ids) await known(service, 'transport-resource', truck);
    }
  };
  const httpPut = (prefix: string) => async (index: number) => {
    const { employee_id, transport_resource_ids, ...rest } = deployment(prefix, index);
    const response = await service.app.inject({
      method: 'PUT',
      url: `${BASE}/deployment/${prefix}-${index}`,
      headers,
      payload: { employee: employee_id, transport_resources: transport_resource_ids, ...rest },
    });
    if (response.statusCode !== 201) throw new Error(`PUT answered ${response.statusCode}: ${response.body}`);
  };
  const directPut = (prefix: string) => (index: number) =>
    service.collections.deployments.put({ tenant: TENANT, key: `${prefix}-${index}` }, deployment(prefix, index));
  await prepare('warm', WARM_UP_OPS);
  await warmUp({ ops: WARM_UP_OPS, operation: httpPut('warm') });
  await warmUp({ ops: WARM_UP_OPS, operation: directPut('warm-direct') });
  for (const concurrency of IN_FLIGHT) {
    const prefix = `c${concurrency}`;
    await prepare(prefix, PUT_OPS);
    const series = (label: string, operation: (index: number) => Promise<unknown>) =>
      measureSeries(context.probe, { label, ops: PUT_OPS, concurrency, operation });
    const baseline = await series('repository put() create', directPut(`${prefix}-direct`));
    const result = await series('PUT /deployment/{id} create', httpPut(prefix));
    rows.push({ result: baseline }, { result, baseline });
  }
}
