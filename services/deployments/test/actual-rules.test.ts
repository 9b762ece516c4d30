import { withTenantSetup } from '@rm/testkit/suites/service-under-test';
import { describeWriteRules } from '@rm/testkit/suites/write-rules';
import { describe, expect, it } from 'vitest';
import { actualBody, actualClient, BASE, fromNow, HOUR, startDeploymentsWorld } from './helpers.js';

const EMPLOYEE = 'emp-rules';

const { accepted, headers, service, violationsOf, withoutField } = describeWriteRules({
  async start() {
    const world = await startDeploymentsWorld();
    return withTenantSetup(world.harness, (tenant) => world.employee(tenant, EMPLOYEE), () => world.close());
  },
  path: `${BASE}/means/${EMPLOYEE}/actual`,
  idParameter: 'actual_id',
  body: () => actualBody(),
  everyRuleBroken: { body: { start: fromNow(2 * HOUR), end: fromNow(HOUR), work_time: 'PT0S' }, fields: ['end', 'end', 'start', 'work_time'] },
});

/** The fields the violations of a refused body name. */
const fieldsOf = async (body: unknown) => (await violationsOf(body)).map((violation) => violation.field);

describe('required fields and shapes', () => {
  it('requires start and work_time, not end', async () => {
    expect(await violationsOf(withoutField('start'))).toEqual([{ field: 'start', message: 'is required' }]);
    expect(await violationsOf(withoutField('work_time'))).toEqual([{ field: 'work_time', message: 'is required' }]);
    expect(await accepted(withoutField('end'))).not.toHaveProperty('end');
    expect(await fieldsOf({})).toEqual(expect.arrayContaining(['start', 'work_time']));
  });

  it('refuses date-times without an offset, dates alone and non-strings, naming the field', async () => {
    for (const start of ['2024-03-01T08:00:00', '2024-03-01', 'yesterday', 17]) {
      expect(await fieldsOf(actualBody({ start })), String(start)).toEqual(['start']);
    }
    for (const end of ['2024-03-01 16:00', '2024-03-01T16:00:00+01', null]) {
      expect(await fieldsOf(actualBody({ end })), String(end)).toEqual(['end']);
    }
  });
});

describe('work_time', () => {
  it('accepts weeks, days, hours, minutes and seconds, with a fraction on the last one', async () => {
    const long = { start: '2024-01-01T00:00:00Z', end: '2024-03-01T00:00:00Z' };
    for (const work_time of ['PT8H', 'PT7H30M', 'P1W', 'P1W2DT3H4M5S', 'PT0.5S', 'PT1,5H', 'P1D']) {
      expect(await accepted({ ...long, work_time }), work_time).toMatchObject({ work_time });
    }
  });

  it('refuses years and months (the schema: no fixed length) and what is no ISO 8601 duration', async () => {
    for (const work_time of ['P1M', 'P1Y', 'P1Y2M', 'PT', 'P', '8h', 'PT1.5H30M', '', 'PT-1H']) {
      const violations = await violationsOf(actualBody({ work_time }));
      expect(violations.map((violation) => violation.field), work_time).toEqual(['work_time']);
    }
    expect(await violationsOf(actualBody({ work_time: 'P1M' }))).toEqual([
      { field: 'work_time', message: expect.stringMatching(/ISO 8601 duration/) },
    ]);
  });

  it('refuses zero, with or without end', async () => {
    const zero = [{ field: 'work_time', message: 'must be strictly positive' }];
    for (const work_time of ['PT0S', 'P0D', 'PT0H0M', 'P0W']) {
      expect(await violationsOf(actualBody({ work_time })), work_time).toEqual(zero);
      expect(await violationsOf(withoutField('end', actualBody({ work_time }))), work_time).toEqual(zero);
    }
  });

  it('accepts exactly end − start and anything below, refuses a millisecond more', async () => {
    expect(await accepted(actualBody({ work_time: 'PT8H' }))).toMatchObject({ work_time: 'PT8H' });
    expect(await accepted(actualBody({ work_time: 'PT0.001S' }))).toMatchObject({ work_time: 'PT0.001S' });
    expect(await accepted(actualBody({ work_time: 'PT7H59M59.999S' }))).toMatchObject({ work_time: 'PT7H59M59.999S' });
    const tooLong = [{ field: 'work_time', message: 'must be at most end − start' }];
    expect(await violationsOf(actualBody({ work_time: 'PT8H0.001S' }))).toEqual(tooLong);
    expect(await violationsOf(actualBody({ work_time: 'PT9H' }))).toEqual(tooLong);
    expect(await violationsOf(actualBody({ work_time: 'P1D' }))).toEqual(tooLong);
  });

  it('measures end − start between instants, whatever the offsets', async () => {
    // 08:00Z to 17:00+01:00 (16:00Z) is 8 hours
    const offset = actualBody({ end: '2024-03-01T17:00:00+01:00', work_time: 'PT8H' });
    expect(await accepted(offset)).toMatchObject({ end: '2024-03-01T16:00:00Z' });
    expect(await fieldsOf(actualBody({ end: '2024-03-01T17:00:00+02:00', work_time: 'PT8H' }))).toEqual(['work_time']);
  });

  it('needs only to be positive without end, however long', async () => {
    expect(await accepted({ start: '2024-03-01T08:00:00Z', work_time: 'PT100H' })).toEqual({
      employee_id: EMPLOYEE,
      business_id: expect.any(String),
      start: '2024-03-01T08:00:00Z',
      work_time: 'PT100H',
      version: 1,
    });
    expect(await accepted({ start: fromNow(-60_000), work_time: 'P52W' })).toMatchObject({ work_time: 'P52W' });
  });
});

describe('end after start', () => {
  it('refuses an end before start or equal to it, naming end only', async () => {
    const notAfter = [{ field: 'end', message: 'must be after start' }];
    expect(await violationsOf(actualBody({ end: '2024-03-01T07:00:00Z', work_time: 'PT1H' }))).toEqual(notAfter);
    expect(await violationsOf(actualBody({ end: '2024-03-01T08:00:00Z', work_time: 'PT1H' }))).toEqual(notAfter);
    // the same instant written with another offset is equal too
    expect(await violationsOf(actualBody({ end: '2024-03-01T09:00:00+01:00', work_time: 'PT1H' }))).toEqual(notAfter);
  });

  it('accepts an end a millisecond after start', async () => {
    const body = { start: '2024-03-01T08:00:00Z', end: '2024-03-01T08:00:00.001Z', work_time: 'PT0.001S' };
    expect(await accepted(body)).toMatchObject({ start: '2024-03-01T08:00:00Z', end: '2024-03-01T08:00:00.001Z' });
  });
});

describe('not in the future', () => {
  it('refuses a start in the future, without end', async () => {
    expect(await violationsOf({ start: fromNow(HOUR), work_time: 'PT1H' })).toEqual([
      { field: 'start', message: 'must not be in the future: an actual describes a completed shift' },
    ]);
    expect(await fieldsOf({ start: '2999-01-01T00:00:00Z', work_time: 'PT1H' })).toEqual(['start']);
  });

  it('refuses an end in the future, after a start in the past', async () => {
    expect(await violationsOf({ start: fromNow(-HOUR), end: fromNow(HOUR), work_time: 'PT1H' })).toEqual([
      { field: 'end', message: 'must not be in the future: an actual describes a completed shift' },
    ]);
  });

  it('names both when start and end are in the future', async () => {
    expect(await fieldsOf({ start: fromNow(HOUR), end: fromNow(2 * HOUR), work_time: 'PT1H' })).toEqual(['start', 'end']);
  });

  it('accepts a shift that ended a moment ago', async () => {
    const body = { start: fromNow(-8 * HOUR), end: fromNow(-1_000), work_time: 'PT7H' };
    expect(await accepted(body)).toMatchObject({ work_time: 'PT7H' });
  });
});

describe('several rules at once', () => {
  it('checks the schema before the rules, and an unknown employee after both', async () => {
    // a schema error alone, even with a rule broken too
    expect(await fieldsOf({ ...actualBody({ work_time: 'PT0S' }), extra: 1 })).toEqual(['extra']);
    const response = await actualClient(service(), headers()).put('nobody', 'a', actualBody({ work_time: 'PT0S' }));
    expect(response.statusCode).toBe(400);
  });
});
