import { json } from '@rm/testkit/suites/service-under-test';
import { describeWriteRules } from '@rm/testkit/suites/write-rules';
import { describe, expect, it } from 'vitest';
import { BASE, startTransportResources, truckBody } from './helpers.js';

const { accepted, expectProblem, get, nextId, putText, service, violationsOf, withoutField } = describeWriteRules({
  start: startTransportResources,
  path: `${BASE}/transport-resource`,
  idParameter: 'transport_resource_id',
  body: () => truckBody(),
  everyRuleBroken: {
    body: truckBody({ type: 'BUS', labels: [''], colour: 'red', costs: { fixed: -1 } }),
    fields: ['colour', 'costs.fixed', 'labels[0]', 'type'],
  },
});

/** `depth` levels of objects: `{"a":{"a":…{}}}`. */
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
/** `depth` levels of arrays: `[[…[]]]`. */
const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** A truck whose custom_data is the given JSON text, as JSON text. */
const withCustomDataText = (customData: string) => {
  const body = JSON.stringify(truckBody());
  return `${body.slice(0, -1)},"custom_data":${customData}}`;
};

describe('type', () => {
  it.each(['TRUCK', 'TRACTOR', 'TRAILER'])('accepts %s', async (type) => {
    expect(await accepted(truckBody({ type }))).toMatchObject({ type });
  });

  it('is required', async () => {
    expect(await violationsOf(withoutField('type'))).toEqual([{ field: 'type', message: 'is required' }]);
  });

  it.each([['BUS'], ['truck'], ['']])('refuses %j, listing the allowed values', async (type) => {
    expect(await violationsOf(truckBody({ type }))).toEqual([{ field: 'type', message: 'must be one of: "TRUCK", "TRACTOR", "TRAILER"' }]);
  });

  it('refuses a type that is not a string', async () => {
    const violations = await violationsOf(truckBody({ type: 1 }));
    expect(violations.map((violation) => violation.field)).toContain('type');
    expect(new Set(violations.map((violation) => violation.field))).toEqual(new Set(['type']));
  });
});

describe.each(['labels', 'requirements', 'required_capabilities', 'capabilities', 'skilled_capabilities', 'cant_do'])('%s', (field) => {
  const distinct = (count: number) => Array.from({ length: count }, (_, index) => `item-${index}`);

  it('accepts up to 100 different strings of up to 200 characters, in the order given', async () => {
    expect(await accepted(truckBody({ [field]: ['b', 'a'] }))).toMatchObject({ [field]: ['b', 'a'] });
    expect(await accepted(truckBody({ [field]: distinct(100) }))).toMatchObject({ [field]: distinct(100) });
    expect(await accepted(truckBody({ [field]: ['x'.repeat(200)] }))).toMatchObject({ [field]: ['x'.repeat(200)] });
    expect(await accepted(truckBody({ [field]: [] }))).toMatchObject({ [field]: [] });
  });

  it('refuses duplicates', async () => {
    expect(await violationsOf(truckBody({ [field]: ['CE', 'C', 'CE'] }))).toEqual([
      { field, message: expect.stringMatching(/^must not contain duplicates \(items \d and \d are equal\)$/) },
    ]);
  });

  it('refuses empty strings and strings over 200 characters, naming the item', async () => {
    expect(await violationsOf(truckBody({ [field]: ['ok', ''] }))).toEqual([{ field: `${field}[1]`, message: 'must not be empty' }]);
    expect(await violationsOf(truckBody({ [field]: ['x'.repeat(201)] }))).toEqual([
      { field: `${field}[0]`, message: 'must be at most 200 characters long' },
    ]);
  });

  it('refuses more than 100 items', async () => {
    expect(await violationsOf(truckBody({ [field]: distinct(101) }))).toEqual([{ field, message: 'must have at most 100 items' }]);
  });

  it('refuses items that are not strings and a list that is not an array', async () => {
    expect(await violationsOf(truckBody({ [field]: ['ok', 3] }))).toEqual([{ field: `${field}[1]`, message: 'must be a string' }]);
    expect(await violationsOf(truckBody({ [field]: 'CE' }))).toEqual([{ field, message: 'must be an array' }]);
  });
});

describe('capacities', () => {
  it('stores a capacity without a type as volume', async () => {
    expect(await accepted(truckBody({ capacities: [{ value: 80 }] }))).toMatchObject({ capacities: [{ type: 'volume', value: 80 }] });
  });

  it('accepts each of the four types once, in the order given', async () => {
    const capacities = [
      { type: 'weight', value: 24_000 },
      { type: 'loading_meters', value: 13.6 },
      { type: 'pallets', value: 0 },
      { type: 'volume', value: 90.5 },
    ];
    expect(await accepted(truckBody({ capacities }))).toMatchObject({ capacities });
  });

  it('refuses a type given twice, naming the second', async () => {
    expect(await violationsOf(truckBody({ capacities: [{ type: 'weight', value: 1 }, { type: 'weight', value: 2 }] }))).toEqual([
      { field: 'capacities[1].type', message: 'must not repeat capacity type weight of capacities[0]' },
    ]);
  });

  it('counts a capacity without a type as volume when looking for repeats', async () => {
    expect(await violationsOf(truckBody({ capacities: [{ type: 'volume', value: 1 }, { type: 'pallets', value: 2 }, { value: 3 }] }))).toEqual([
      { field: 'capacities[2].type', message: 'must not repeat capacity type volume of capacities[0]' },
    ]);
  });

  it('refuses a negative value, a value over 1,000,000,000 and a missing one', async () => {
    expect(await violationsOf(truckBody({ capacities: [{ type: 'weight', value: -1 }] }))).toEqual([
      { field: 'capacities[0].value', message: 'must be ≥ 0' },
    ]);
    expect(await violationsOf(truckBody({ capacities: [{ type: 'weight', value: 1_000_000_001 }] }))).toEqual([
      { field: 'capacities[0].value', message: 'must be ≤ 1000000000' },
    ]);
    expect(await violationsOf(truckBody({ capacities: [{ type: 'weight' }] }))).toEqual([{ field: 'capacities[0].value', message: 'is required' }]);
  });

  it('refuses an unknown type, listing the allowed ones', async () => {
    expect(await violationsOf(truckBody({ capacities: [{ type: 'seats', value: 2 }] }))).toEqual([
      { field: 'capacities[0].type', message: 'must be one of: "volume", "weight", "loading_meters", "pallets"' },
    ]);
  });

  it('refuses an unknown property of a capacity', async () => {
    expect(await violationsOf(truckBody({ capacities: [{ type: 'weight', value: 2, unit: 'kg' }] }))).toEqual([
      { field: 'capacities[0].unit', message: 'is not allowed' },
    ]);
  });
});

describe('location', () => {
  it('requires one of start_location and home_base', async () => {
    expect(await violationsOf(withoutField('start_location'))).toEqual([
      { field: 'start_location', message: 'start_location or home_base is required' },
    ]);
  });

  it('refuses start_location and home_base together, naming home_base', async () => {
    expect(await violationsOf(truckBody({ home_base: { business_id: 'hb-1' } }))).toEqual([
      { field: 'home_base', message: 'must not be given together with start_location' },
    ]);
  });

  it('requires the name of a start location', async () => {
    expect(await violationsOf(truckBody({ start_location: { city: 'Gent', zip_code: '9000', country_code: 'BE' } }))).toEqual([
      { field: 'start_location.name', message: 'is required' },
    ]);
  });

  it('requires address information or a geo point, and a real country', async () => {
    expect(await violationsOf(truckBody({ start_location: { name: 'Yard', country_code: 'QQ' } }))).toEqual([
      { field: 'start_location.city', message: 'is required when no geo_point is given' },
      { field: 'start_location.zip_code', message: 'is required when no geo_point is given' },
      { field: 'start_location.country_code', message: 'must be an ISO 3166-1 alpha-2 country code' },
    ]);
  });

  it('accepts a geo point alone and drops its read-only resolved part', async () => {
    const start_location = { name: 'Yard', geo_point: { latitude: 51.05, longitude: 3.72, resolved: { geocoded: true } } };
    expect(await accepted(truckBody({ start_location }))).toMatchObject({
      start_location: { name: 'Yard', geo_point: { latitude: 51.05, longitude: 3.72 } },
    });
  });

  it('refuses a home base id outside the business id pattern', async () => {
    const violations = await violationsOf({ ...withoutField('start_location'), home_base: { business_id: 'hb 1' } });
    expect(violations.map((violation) => violation.field)).toEqual(['home_base.business_id']);
  });
});

describe('inactive', () => {
  it('defaults to false and keeps true and false', async () => {
    expect(await accepted(truckBody())).toMatchObject({ inactive: false });
    expect(await accepted(truckBody({ inactive: true }))).toMatchObject({ inactive: true });
    expect(await accepted(truckBody({ inactive: false }))).toMatchObject({ inactive: false });
  });

  it('must be a boolean', async () => {
    expect(await violationsOf(truckBody({ inactive: 'yes' }))).toEqual([{ field: 'inactive', message: 'must be a boolean' }]);
    expect(await violationsOf(truckBody({ inactive: 1 }))).toEqual([{ field: 'inactive', message: 'must be a boolean' }]);
  });
});

describe('costs', () => {
  it('rounds each cost to 4 decimals', async () => {
    expect(await accepted(truckBody({ costs: { fixed: 1.00005, per_hour: 0.12344, per_km: 0.12345 } }))).toMatchObject({
      costs: { fixed: 1.0001, per_hour: 0.1234, per_km: 0.1235 },
    });
    expect(await accepted(truckBody({ costs: { per_km: 0.00004 } }))).toMatchObject({ costs: { per_km: 0 } });
    expect(await accepted(truckBody({ costs: { fixed: 250 } }))).toMatchObject({ costs: { fixed: 250 } });
  });

  it('refuses a negative cost, a cost that is not a number and an unknown one', async () => {
    expect(await violationsOf(truckBody({ costs: { fixed: -0.5 } }))).toEqual([{ field: 'costs.fixed', message: 'must be ≥ 0' }]);
    expect(await violationsOf(truckBody({ costs: { per_hour: '3' } }))).toEqual([{ field: 'costs.per_hour', message: 'must be a number' }]);
    expect(await violationsOf(truckBody({ costs: { per_stop: 1 } }))).toEqual([{ field: 'costs.per_stop', message: 'is not allowed' }]);
  });
});

describe('route_settings', () => {
  it('keeps direct_trips', async () => {
    expect(await accepted(truckBody({ route_settings: { direct_trips: true } }))).toMatchObject({ route_settings: { direct_trips: true } });
    expect(await accepted(truckBody({ route_settings: { direct_trips: false } }))).toMatchObject({ route_settings: { direct_trips: false } });
  });

  it('refuses a direct_trips that is not a boolean and an unknown property', async () => {
    expect(await violationsOf(truckBody({ route_settings: { direct_trips: 'true' } }))).toEqual([
      { field: 'route_settings.direct_trips', message: 'must be a boolean' },
    ]);
    expect(await violationsOf(truckBody({ route_settings: { max_stops_per_shift: 3 } }))).toEqual([
      { field: 'route_settings.max_stops_per_shift', message: 'is not allowed' },
    ]);
  });
});

describe('license_plate and reference', () => {
  it('accepts a license plate of 1 to 32 characters and refuses an empty or longer one', async () => {
    expect(await accepted(truckBody({ license_plate: 'P' }))).toMatchObject({ license_plate: 'P' });
    expect(await accepted(truckBody({ license_plate: 'P'.repeat(32) }))).toMatchObject({ license_plate: 'P'.repeat(32) });
    expect(await violationsOf(truckBody({ license_plate: '' }))).toEqual([{ field: 'license_plate', message: 'must not be empty' }]);
    expect(await violationsOf(truckBody({ license_plate: 'P'.repeat(33) }))).toEqual([
      { field: 'license_plate', message: 'must be at most 32 characters long' },
    ]);
  });

  it('accepts a reference of 1 to 200 characters and refuses an empty or longer one', async () => {
    expect(await accepted(truckBody({ reference: 'R'.repeat(200) }))).toMatchObject({ reference: 'R'.repeat(200) });
    expect(await violationsOf(truckBody({ reference: '' }))).toEqual([{ field: 'reference', message: 'must not be empty' }]);
    expect(await violationsOf(truckBody({ reference: 'R'.repeat(201) }))).toEqual([
      { field: 'reference', message: 'must be at most 200 characters long' },
    ]);
  });
});

describe('custom_data', () => {
  it('must be an object', async () => {
    for (const customData of [[1, 2], 'text', 3, null, true]) {
      expect(await violationsOf(truckBody({ custom_data: customData }))).toEqual([{ field: 'custom_data', message: 'must be an object' }]);
    }
  });

  it('accepts an empty object and keeps it', async () => {
    expect(await accepted(truckBody({ custom_data: {} }))).toMatchObject({ custom_data: {} });
  });

  it('accepts exactly 16384 bytes of JSON and refuses 16385, in ASCII and in multi-byte UTF-8', async () => {
    // {"x":"…"} is 8 bytes around the string
    const ascii = (bytes: number) => ({ x: 'a'.repeat(bytes - 8) });
    // '€' takes 3 bytes of UTF-8: 5458 of them and the rest in ASCII
    const euros = (bytes: number) => ({ x: `${'€'.repeat(5458)}${'a'.repeat(bytes - 8 - 3 * 5458)}` });
    for (const make of [ascii, euros]) {
      expect(Buffer.byteLength(JSON.stringify(make(16_384)))).toBe(16_384);
      expect(await accepted(truckBody({ custom_data: make(16_384) }))).toMatchObject({ custom_data: make(16_384) });
      expect(await violationsOf(truckBody({ custom_data: make(16_385) }))).toEqual([
        { field: 'custom_data', message: 'must be at most 16 KiB (16384 bytes) as JSON; it is 16385 bytes' },
      ]);
    }
  });

  it('counts the bytes of the JSON text, escapes included', async () => {
    // each control character is six bytes as JSON: \u0001
    const escaped = { x: '\u0001'.repeat(2730) }; // 8 + 6 × 2730 = 16388 bytes
    expect(Buffer.byteLength(JSON.stringify(escaped))).toBe(16_388);
    expect(await violationsOf(truckBody({ custom_data: escaped }))).toEqual([
      { field: 'custom_data', message: 'must be at most 16 KiB (16384 bytes) as JSON; it is 16388 bytes' },
    ]);
  });

  it('refuses unpaired surrogates in its keys and strings, naming their paths', async () => {
    const text = withCustomDataText('{"\\ud800":1,"ok":["fine","\\udc00"],"nested":{"k":"\\ud83d"}}');
    expect(expectProblem(await putText(nextId(), text))).toEqual([
      { field: 'custom_data["\\ud800"]', message: 'must be valid Unicode text, without unpaired surrogates like \\ud800' },
      { field: 'custom_data.ok[1]', message: 'must be valid Unicode text, without unpaired surrogates like \\ud800' },
      { field: 'custom_data.nested.k', message: 'must be valid Unicode text, without unpaired surrogates like \\ud800' },
    ]);
    // a pair written as escapes is one character
    const paired = await putText(nextId(), withCustomDataText('{"truck":"\\ud83d\\ude9a"}'));
    expect(paired.statusCode).toBe(201);
    expect(json(paired).custom_data).toEqual({ truck: '🚚' });
  });

  it('accepts 64 levels of objects or arrays and refuses 65', async () => {
    for (const nested of [nestedObjects, (depth: number) => `{"list":${nestedArrays(depth - 1)}}`]) {
      const id = nextId();
      const ok = await putText(id, withCustomDataText(nested(64)));
      expect(ok.statusCode, ok.body).toBe(201);
      expect(JSON.stringify(json(ok).custom_data)).toBe(nested(64));
      expect(JSON.stringify(json(await get(id)).custom_data)).toBe(nested(64));

      expect(expectProblem(await putText(nextId(), withCustomDataText(nested(65))))).toEqual([
        { field: 'custom_data', message: 'must not nest objects and arrays more than 64 levels deep' },
      ]);
    }
  });

  it('refuses nesting 5000 levels deep with a 400, never a 500', async () => {
    for (const deep of [nestedObjects(5000), `{"list":${nestedArrays(5000)}}`]) {
      const before = service().writes();
      expect(expectProblem(await putText(nextId(), withCustomDataText(deep)))).toEqual([
        { field: 'custom_data', message: 'must not nest objects and arrays more than 64 levels deep' },
      ]);
      expect(service().writes()).toBe(before);
    }
  });
});

describe('deep nesting outside custom_data', () => {
  it.each([
    ['an unknown field', (deep: string) => `${JSON.stringify(truckBody()).slice(0, -1)},"extra":${deep}}`],
    ['route_settings', (deep: string) => `${JSON.stringify(truckBody()).slice(0, -1)},"route_settings":{"direct_trips":${deep}}}`],
    ['labels', (deep: string) => `${JSON.stringify(truckBody()).slice(0, -1)},"labels":[${deep}]}`],
  ])('answers 400 to 5000 levels in %s', async (_where, make) => {
    for (const deep of [nestedObjects(5000), nestedArrays(5000)]) expectProblem(await putText(nextId(), make(deep)));
  });
});
