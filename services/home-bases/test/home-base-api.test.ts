import { describeBusinessResourceApi } from '@rm/testkit/suites/business-resource-api';
import { json } from '@rm/testkit/suites/service-under-test';
import { describe, expect, it } from 'vitest';
import { BASE, homeBaseBody, startHomeBases } from './helpers.js';

/** What a read shows of a home base: the body as sent. */
const shown = (id: string, body: Record<string, unknown>, version: number) => ({ business_id: id, ...body, version });

const { put, get, service } = describeBusinessResourceApi('/home-base/{home_base_id}', {
  start: startHomeBases,
  path: `${BASE}/home-base`,
  listProperty: 'home_bases',
  body: (n) => homeBaseBody({ plan_group: `group-${n}` }),
  shown,
});

describe('PUT /home-base/{home_base_id}', () => {
  it('ignores the read-only address.geo_point.resolved: not stored, and no change when only it differs', async () => {
    const address = { name: 'Yard', geo_point: { latitude: 51.05, longitude: 3.72 } };
    const response = await put('hb-6', homeBaseBody({ address: { ...address, geo_point: { ...address.geo_point, resolved: { geocoded: true } } } }));
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual(shown('hb-6', homeBaseBody({ address }), 1));
    expect(json(await get('hb-6'))).toEqual(shown('hb-6', homeBaseBody({ address }), 1));

    const before = service().writes();
    const resent = await put('hb-6', homeBaseBody({ address: { ...address, geo_point: { ...address.geo_point, resolved: 'anything' } } }));
    expect(resent.statusCode).toBe(200);
    expect(resent.headers.etag).toBe('W/"1"');
    expect(service().writes()).toBe(before);
  });

  it('accepts a home base without plan_group and drops plan_group when left out of an update', async () => {
    const { plan_group: _omitted, ...body } = homeBaseBody();
    expect(json(await put('hb-7', homeBaseBody()))).toEqual(shown('hb-7', homeBaseBody(), 1));
    const response = await put('hb-7', body);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual(shown('hb-7', body, 2));
  });
});
