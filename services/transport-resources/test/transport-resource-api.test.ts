import { describeBusinessResourceApi } from '@rm/testkit/suites/business-resource-api';
import { json } from '@rm/testkit/suites/service-under-test';
import { describe, expect, it } from 'vitest';
import { BASE, startTransportResources, truckBody } from './helpers.js';

/** What a read shows of a transport resource: the body with `inactive` filled in. */
const shown = (id: string, body: Record<string, unknown>, version: number) => ({ business_id: id, ...body, inactive: false, version });

const { put, service, tenant } = describeBusinessResourceApi('/transport-resource/{transport_resource_id}', {
  start: startTransportResources,
  path: `${BASE}/transport-resource`,
  listProperty: 'transport_resources',
  // custom_data rides along: what a read shows of it must come back unchanged too
  body: (n) => truckBody({ labels: [`label-${n}`], custom_data: { fleet: { id: n } } }),
  shown,
});

describe('PUT /transport-resource/{transport_resource_id}', () => {
  it('keeps the version when a body differs only by defaults spelled out or by digits beyond the fourth decimal of a cost', async () => {
    await put('truck-3b', truckBody({ capacities: [{ value: 10 }], costs: { per_km: 0.12344 } }));
    const before = service().writes();
    for (const body of [
      truckBody({ capacities: [{ type: 'volume', value: 10 }], costs: { per_km: 0.1234 }, inactive: false }),
      truckBody({ capacities: [{ value: 10 }], costs: { per_km: 0.123399 } }),
    ]) {
      const response = await put('truck-3b', body);
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBe('W/"1"');
    }
    expect(service().writes()).toBe(before);
    expect((await put('truck-3b', truckBody({ capacities: [{ value: 10 }], costs: { per_km: 0.12346 } }))).headers.etag).toBe('W/"2"');
  });

  it('accepts a home base instead of a start location', async () => {
    await service().createHomeBases(tenant, 'hb.gent-1');
    const { start_location: _omitted, ...body } = truckBody();
    const response = await put('truck-6', { ...body, home_base: { business_id: 'hb.gent-1' } });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(shown('truck-6', { ...body, home_base: { business_id: 'hb.gent-1' } }, 1));
  });
});
