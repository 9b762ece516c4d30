import { describeBusinessResourceApi } from '@rm/testkit/suites/business-resource-api';
import { json } from '@rm/testkit/suites/service-under-test';
import { describeWriteRules } from '@rm/testkit/suites/write-rules';
import { describe, expect, it } from 'vitest';
import { BASE, employeeBody, startEmployees } from './helpers.js';

const { put, service, tenant } = describeBusinessResourceApi('/employee/{employee_id}', {
  start: startEmployees,
  path: `${BASE}/employee`,
  listProperty: 'employees',
  body: (n) => employeeBody({ labels: [`label-${n}`] }),
  shown: (id, body, version) => ({ business_id: id, ...body, version }),
});

const { violationsOf } = describeWriteRules({
  start: startEmployees,
  path: `${BASE}/employee`,
  idParameter: 'employee_id',
  body: () => employeeBody(),
  everyRuleBroken: {
    body: employeeBody({
      name: { first_name: 'Ada', middle_name: 'B' },
      skills: ['nl', 3],
      route_settings: { driving_speed_factor: 3, max_stops_per_shift: 1.5 },
    }),
    fields: ['name.middle_name', 'route_settings.driving_speed_factor', 'route_settings.max_stops_per_shift', 'skills[1]'],
  },
});

describe('PUT /employee/{employee_id}', () => {
  it('rounds costs to 4 decimals', async () => {
    const response = await put('emp-5', employeeBody({ costs: { per_hour: 28.123456, per_km: 0.00004 } }));
    expect(json(response)).toMatchObject({ costs: { per_hour: 28.1235, per_km: 0 } });
  });

  it('accepts a home base instead of a start location', async () => {
    await service().createHomeBases(tenant, 'hb.gent-1');
    const { start_location: _omitted, ...body } = employeeBody();
    const response = await put('emp-6', { ...body, home_base: { business_id: 'hb.gent-1' } });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toMatchObject({ home_base: { business_id: 'hb.gent-1' } });
  });
});

describe('validation', () => {
  it('does not coerce types in the body', async () => {
    const violations = await violationsOf(employeeBody({ route_settings: { max_stops_per_shift: '3' } }));
    expect(violations).toEqual([{ field: 'route_settings.max_stops_per_shift', message: expect.stringMatching(/integer/) }]);
  });

  it('refuses duplicate and empty skills', async () => {
    expect((await violationsOf(employeeBody({ skills: ['nl', 'nl'] }))).map((v) => v.field)).toEqual(['skills']);
    expect((await violationsOf(employeeBody({ labels: [''] }))).map((v) => v.field)).toEqual(['labels[0]']);
  });

  it('requires exactly one of start_location and home_base', async () => {
    const { start_location: _omitted, ...withoutLocation } = employeeBody();
    expect(await violationsOf(withoutLocation)).toEqual([{ field: 'start_location', message: 'start_location or home_base is required' }]);
    expect(await violationsOf(employeeBody({ home_base: { business_id: 'hb' } }))).toEqual([
      { field: 'home_base', message: 'must not be given together with start_location' },
    ]);
  });

  it('requires the start location name and address information or a geo point', async () => {
    expect(await violationsOf(employeeBody({ start_location: { city: 'Gent', zip_code: '9000', country_code: 'BE' } }))).toEqual([
      { field: 'start_location.name', message: 'is required' },
    ]);
    expect(await violationsOf(employeeBody({ start_location: { name: 'Yard', country_code: 'QQ' } }))).toEqual([
      { field: 'start_location.city', message: 'is required when no geo_point is given' },
      { field: 'start_location.zip_code', message: 'is required when no geo_point is given' },
      { field: 'start_location.country_code', message: 'must be an ISO 3166-1 alpha-2 country code' },
    ]);
    const outOfRange = await violationsOf(employeeBody({ start_location: { name: 'Yard', geo_point: { latitude: 91, longitude: 0 } } }));
    expect(outOfRange.map((violation) => violation.field)).toEqual(['start_location.geo_point.latitude']);
  });

  it('refuses a negative cost and a linked transport resource outside the business id pattern', async () => {
    const violations = await violationsOf(employeeBody({ costs: { fixed: -1 }, linked_transport_resource: 'truck 7' }));
    expect(violations.map((violation) => violation.field).sort()).toEqual(['costs.fixed', 'linked_transport_resource']);
  });
});

describe('ping and probes', () => {
  it('answers pong on /ping to an authenticated caller', async () => {
    const response = await service().app.inject({ method: 'GET', url: `${BASE}/ping`, headers: await service().as(tenant) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('pong');
  });

  it('answers /healthz and /readyz without a token', async () => {
    expect((await service().app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await service().app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(json(ready)).toMatchObject({ status: 'ready' });
  });
});
