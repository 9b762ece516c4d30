import { beforeAll, describe, expect, it } from 'vitest';
import { WRITES_HEADER } from '@rm/contracts';
import { uniqueName } from '@rm/testkit';
import { useWorld } from '@rm/testkit/service-helpers';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { BASE, employeeBody, json, startEmployees } from './helpers.js';

const { world: harness } = useWorld(startEmployees);
let alice: Record<string, string>;

const EMPLOYEE = 'emp-generated';
const employeeUrl = (employee = EMPLOYEE) => `${BASE}/employee/${employee}`;
const send = (method: 'GET' | 'POST' | 'PUT', url: string, body?: object) =>
  harness.app.inject({ method, url, headers: alice, ...(body === undefined ? {} : { payload: body }) });
const expected = (query: string, employee = EMPLOYEE) => send('GET', `${employeeUrl(employee)}/expected-availability?${query}`);
const generate = (body: object, employee = EMPLOYEE) => send('POST', `${employeeUrl(employee)}/availability-generation`, body);

/** Mondays 06:00 and Wednesdays 14:00 (8 hours each), every week from Monday 2026-11-30, read in Europe/Brussels. */
const WEEKLY = {
  start: { start_date: '2026-11-30', start_week: 1 },
  templates: [
    {
      index: 1,
      shifts: [
        { start: { earliest: { day: 'MONDAY', time: '06:00' } }, duration: { at_most: 'PT8H' } },
        { start: { earliest: { day: 'WEDNESDAY', time: '14:00' } }, duration: { at_most: 'PT8H' }, mandatory: true },
      ],
    },
  ],
};
const TWO_WEEKS = { from: '2026-11-30T00:00:00Z', until: '2026-12-14T00:00:00Z', time_zone: 'Europe/Brussels' };
const TWO_WEEKS_QUERY = new URLSearchParams(TWO_WEEKS).toString();
let scheduleId: string;

beforeAll(async () => {
  alice = await harness.as('tenant-a');
  await send('PUT', employeeUrl(), employeeBody());
  scheduleId = json<{ id: string }>(await send('POST', `${employeeUrl()}/shift-schedule`, WEEKLY)).id;
});

interface Outcome {
  shift_schedule_id: string;
  earliest_start: string;
  availability_id: string;
}
interface Generated {
  created: Outcome[];
  existing: Outcome[];
  overlapping: Outcome[];
  refused: unknown[];
}

describe('GET /employee/{employee_id}/expected-availability and POST …/availability-generation', () => {
  it('lists the shifts the schedule implies, in UTC, where the employee starts, and that no availability covers them yet', async () => {
    const answer = await expected(TWO_WEEKS_QUERY);
    expect(answer.statusCode).toBe(200);
    const shifts = json<Record<string, unknown>[]>(answer);
    expect(shifts.map((shift) => (shift.availability as { earliest_start: string }).earliest_start)).toEqual([
      '2026-11-30T05:00:00Z',
      '2026-12-02T13:00:00Z',
      '2026-12-07T05:00:00Z',
      '2026-12-09T13:00:00Z',
    ]);
    expect(shifts[1]).toMatchObject({
      shift_schedule_id: scheduleId,
      template_index: 1,
      shift_position: 1,
      availability: { max_duration: 'PT8H', mandatory: true },
      start_location: { address: { name: 'Depot Gent' } },
      start_location_from: 'employee',
    });
    expect(shifts.filter((shift) => 'covered_by' in shift || 'overlapping' in shift)).toEqual([]);
  });

  it('creates an availability for each shift no availability covers, and tells the one another availability overlaps', async () => {
    const blocking = json<{ id: string }>(
      await send('POST', `${employeeUrl()}/availability`, { earliest_start: '2026-12-07T09:00:00Z', max_duration: 'PT4H' }),
    );
    const answer = await generate(TWO_WEEKS);
    expect(answer.statusCode).toBe(200);
    // the gateway counts them against the tenant's request rate
    expect(answer.headers[WRITES_HEADER]).toBe('3');
    const generated = json<Generated>(answer);
    expect(generated.created.map((each) => each.earliest_start)).toEqual(['2026-11-30T05:00:00Z', '2026-12-02T13:00:00Z', '2026-12-09T13:00:00Z']);
    expect(generated.overlapping).toEqual([
      { shift_schedule_id: scheduleId, template_index: 1, shift_position: 0, earliest_start: '2026-12-07T05:00:00Z', availability_id: blocking.id },
    ]);
    expect(generated.existing).toEqual([]);
    const created = await send('GET', `${employeeUrl()}/availability/${generated.created[1]?.availability_id}`);
    expect(json(created)).toMatchObject({ earliest_start: '2026-12-02T13:00:00Z', max_duration: 'PT8H', mandatory: true });
  });

  it('creates nothing the second time, and the listing names the availability that covers each shift', async () => {
    const generated = json<Generated>(await generate(TWO_WEEKS));
    expect(generated.created).toEqual([]);
    expect(generated.existing).toHaveLength(3);
    expect(generated.overlapping).toHaveLength(1);
    const shifts = json<{ covered_by?: string; overlapping?: string }[]>(await expected(TWO_WEEKS_QUERY));
    const [first, second, fourth] = generated.existing.map((each) => each.availability_id);
    expect(shifts.map((shift) => shift.covered_by)).toEqual([first, second, undefined, fourth]);
    expect(shifts[2]?.overlapping).toBe(generated.overlapping[0]?.availability_id);
  });

  it('generates only the shifts of the schedule it is given', async () => {
    const other = json<{ id: string }>(
      await send('POST', `${employeeUrl()}/shift-schedule`, {
        start: { start_date: '2026-11-30', start_week: 1 },
        templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'FRIDAY', time: '06:00' } }, duration: { at_most: 'PT4H' } }] }],
      }),
    );
    const generated = json<Generated>(await generate({ ...TWO_WEEKS, shift_schedule_id: other.id }));
    expect(generated.created.map((each) => [each.shift_schedule_id, each.earliest_start])).toEqual([
      [other.id, '2026-12-04T05:00:00Z'],
      [other.id, '2026-12-11T05:00:00Z'],
    ]);
    expect(generated.existing).toEqual([]);
  });

  it('creates the first of two schedules\' overlapping shifts, and tells the second it overlaps that one', async () => {
    const employee = 'emp-two-schedules';
    await send('PUT', employeeUrl(employee), employeeBody());
    const mondayAt = (time: string) => ({
      start: { start_date: '2026-11-30', start_week: 1 },
      templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'MONDAY', time } }, duration: { at_most: 'PT8H' } }] }],
    });
    for (const time of ['06:00', '08:00']) await send('POST', `${employeeUrl(employee)}/shift-schedule`, mondayAt(time));
    const generated = json<Generated>(await generate({ ...TWO_WEEKS, time_zone: 'UTC' }, employee));
    expect(generated.created.map((each) => each.earliest_start)).toEqual(['2026-11-30T06:00:00Z', '2026-12-07T06:00:00Z']);
    expect(generated.overlapping.map((each) => [each.earliest_start, each.availability_id])).toEqual([
      ['2026-11-30T08:00:00Z', generated.created[0]?.availability_id],
      ['2026-12-07T08:00:00Z', generated.created[1]?.availability_id],
    ]);
  });

  it("creates as many as the tenant's quota of availabilities takes, and refuses each shift beyond it with its 409", async () => {
    const limited = await harness.env.bearer(uniqueName('generation-quota'), { claims: { limits: { availabilities: 3 } } });
    const employee = 'emp-at-quota';
    await harness.app.inject({ method: 'PUT', url: employeeUrl(employee), headers: limited, payload: employeeBody() });
    await harness.app.inject({ method: 'POST', url: `${employeeUrl(employee)}/shift-schedule`, headers: limited, payload: WEEKLY });
    const answer = await harness.app.inject({ method: 'POST', url: `${employeeUrl(employee)}/availability-generation`, headers: limited, payload: TWO_WEEKS });
    const generated = json<Generated>(answer);
    expect(generated.created).toHaveLength(3);
    expect(generated.refused).toEqual([expect.objectContaining({ earliest_start: '2026-12-09T13:00:00Z', problem: expect.objectContaining({ status: 409 }) })]);
  });

  it('creates more shifts than one commit takes in parts, and goes one by one where the quota runs out', async () => {
    const limited = await harness.env.bearer(uniqueName('generation-parts'), { claims: { limits: { availabilities: 230 } } });
    const employee = 'emp-many-shifts';
    const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
    const threeADay = {
      start: { start_date: '2026-11-30', start_week: 1 },
      templates: [{ index: 1, shifts: days.flatMap((day) => ['06:00', '12:00', '18:00'].map((time) => ({ start: { earliest: { day, time } }, duration: { at_most: 'PT4H' } }))) }],
    };
    const as = (method: 'PUT' | 'POST', url: string, payload: object) => harness.app.inject({ method, url, headers: limited, payload });
    await as('PUT', employeeUrl(employee), employeeBody());
    await as('POST', `${employeeUrl(employee)}/shift-schedule`, threeADay);
    // twelve weeks: 252 shifts, more than the 200 one commit creates
    const generated = json<Generated>(await as('POST', `${employeeUrl(employee)}/availability-generation`, { from: '2026-11-30T00:00:00Z', until: '2027-02-22T00:00:00Z' }));
    expect(generated.created).toHaveLength(230);
    expect(generated.refused).toHaveLength(22);
    expect(new Set((generated.refused as { problem: { status: number } }[]).map(({ problem }) => problem.status))).toEqual(new Set([409]));
    const starts = [...generated.created, ...(generated.refused as Outcome[])].map((each) => each.earliest_start);
    expect(starts).toEqual(starts.toSorted());
    expect(new Set(starts).size).toBe(252);
  });

  it('refuses a range the wrong way round, longer than a quarter, or in an unknown time zone, naming the field', async () => {
    const refusedFields = (response: Awaited<ReturnType<typeof expected>>) =>
      expectProblemWithStatus<{ violations: { field: string }[] }>(response, 400).violations.map((violation) => violation.field);
    expect(refusedFields(await expected('from=2026-12-14T00:00:00Z&until=2026-11-30T00:00:00Z'))).toEqual(['until']);
    expect(refusedFields(await expected('from=2026-01-01T00:00:00Z&until=2026-06-01T00:00:00Z'))).toEqual(['until']);
    expect(refusedFields(await generate({ ...TWO_WEEKS, time_zone: 'Mars/Olympus' }))).toEqual(['time_zone']);
    expect(refusedFields(await expected('from=2026-11-30T00:00:00Z'))).toEqual(['until']);
  });

  it('answers 404 for an unknown employee or schedule', async () => {
    expectProblemWithStatus(await expected(TWO_WEEKS_QUERY, 'nobody'), 404, { detail: "employee 'nobody' does not exist" });
    const unknown = '0190a3c4-1234-7abc-8def-0123456789ab';
    expectProblemWithStatus(await generate({ ...TWO_WEEKS, shift_schedule_id: unknown }), 404, {
      detail: `shift schedule '${unknown}' of employee '${EMPLOYEE}' does not exist`,
    });
  });
});

describe('POST /availability-generation', () => {
  it("goes through the tenant's employees with a schedule, 20 at a time by id, and creates nothing the second time", async () => {
    const bob = await harness.as('tenant-generation');
    const call = (method: 'PUT' | 'POST', url: string, body: object) => harness.app.inject({ method, url: `${BASE}${url}`, headers: bob, payload: body });
    const ids = Array.from({ length: 21 }, (_, index) => `emp-${String(index).padStart(2, '0')}`);
    for (const id of ids) {
      await call('PUT', `/employee/${id}`, employeeBody());
      await call('POST', `/employee/${id}/shift-schedule`, WEEKLY);
    }
    await call('PUT', '/employee/emp-without-schedule', employeeBody());
    const firstAnswer = await call('POST', '/availability-generation', TWO_WEEKS);
    expect(firstAnswer.headers[WRITES_HEADER]).toBe('80');
    const first = json<{ employees: (Generated & { employee_id: string })[]; next_after?: string }>(firstAnswer);
    expect(first.employees.map((each) => each.employee_id)).toEqual(ids.slice(0, 20));
    expect(first.employees.every((each) => each.created.length === 4)).toBe(true);
    expect(first.next_after).toBe('emp-19');
    // a schedule given during the run: its pages go on from the ids its first page read
    await call('PUT', '/employee/emp-195', employeeBody());
    await call('POST', '/employee/emp-195/shift-schedule', WEEKLY);
    const rest = json<{ employees: (Generated & { employee_id: string })[]; next_after?: string }>(
      await call('POST', '/availability-generation', { ...TWO_WEEKS, after: first.next_after as string }),
    );
    expect(rest.employees.map((each) => [each.employee_id, each.created.length])).toEqual([['emp-20', 4]]);
    expect(rest.next_after).toBeUndefined();
    // the next run reads them again: it sees that employee
    const again = json<{ employees: Generated[]; next_after?: string }>(await call('POST', '/availability-generation', TWO_WEEKS));
    expect(again.employees.map((each) => [each.created.length, each.existing.length])).toEqual(Array.from({ length: 20 }, () => [0, 4]));
    const last = json<{ employees: (Generated & { employee_id: string })[] }>(await call('POST', '/availability-generation', { ...TWO_WEEKS, after: again.next_after as string }));
    expect(last.employees.map((each) => [each.employee_id, each.created.length, each.existing.length])).toEqual([
      ['emp-195', 4, 0],
      ['emp-20', 0, 4],
    ]);
  }, 60_000);

  // Found in review: such an employee's 400 failed every call of the run, which could never get past it.
  it('lists an employee whose range holds too many expected shifts with its problem, and goes on past it', async () => {
    const carol = await harness.as('tenant-generation-crowded');
    const call = (method: 'PUT' | 'POST', url: string, body: object) => harness.app.inject({ method, url: `${BASE}${url}`, headers: carol, payload: body });
    // four shifts a day, three times over: some 1,100 expected shifts in 92 days
    const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
    const crowded = {
      start: { start_date: '2026-11-30', start_week: 1 },
      templates: [{ index: 1, shifts: days.flatMap((day) => ['00:00', '06:00', '12:00', '18:00'].map((time) => ({ start: { earliest: { day, time } }, duration: { at_most: 'PT5H' } }))) }],
    };
    await call('PUT', '/employee/emp-a-crowded', employeeBody());
    for (let copy = 0; copy < 3; copy += 1) expect((await call('POST', '/employee/emp-a-crowded/shift-schedule', crowded)).statusCode).toBe(201);
    await call('PUT', '/employee/emp-b-weekly', employeeBody());
    await call('POST', '/employee/emp-b-weekly/shift-schedule', WEEKLY);
    const quarter = { from: '2026-11-30T00:00:00Z', until: '2027-03-02T00:00:00Z' };
    const run = json<{ employees: (Generated & { employee_id: string; problem?: { status: number } })[]; next_after?: string }>(
      await call('POST', '/availability-generation', quarter),
    );
    expect(run.employees.map((each) => [each.employee_id, each.created.length, each.problem?.status])).toEqual([
      ['emp-a-crowded', 0, 400],
      ['emp-b-weekly', 27, undefined],
    ]);
    expect(run.employees[0]?.problem).toMatchObject({ violations: [{ field: 'until', message: 'the range holds more than 1000 expected shifts; narrow it' }] });
    expect(run.next_after).toBeUndefined();
  }, 60_000);

  it('refuses an unknown time zone even for a tenant without schedules', async () => {
    const empty = await harness.as('tenant-without-schedules');
    const refused = await harness.app.inject({ method: 'POST', url: `${BASE}/availability-generation`, headers: empty, payload: { ...TWO_WEEKS, time_zone: 'Mars/Olympus' } });
    expect(expectProblemWithStatus<{ violations: { field: string }[] }>(refused, 400).violations.map((violation) => violation.field)).toEqual(['time_zone']);
  });
});
