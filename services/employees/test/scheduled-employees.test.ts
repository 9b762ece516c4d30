import { beforeAll, describe, expect, it } from 'vitest';
import type { ShiftScheduleFields } from '@rm/contracts';
import type { StoredDocument } from '@rm/store';
import { useWorld } from '@rm/testkit/service-helpers';
import { createScheduledEmployees } from '../src/store/scheduled-employees.js';
import { BASE, employeeBody, startEmployees } from './helpers.js';

const { world: harness } = useWorld(startEmployees);

const SCHEDULE = {
  start: { start_date: '2026-11-30', start_week: 1 },
  templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'MONDAY', time: '06:00' } }, duration: { at_most: 'PT8H' } }] }],
};

/** The employee, with a schedule, in the tenant. */
async function schedule(tenant: string, employee: string): Promise<void> {
  const headers = await harness.as(tenant);
  const url = `${BASE}/employee/${employee}`;
  expect((await harness.app.inject({ method: 'PUT', url, headers, payload: employeeBody() })).statusCode).toBeLessThan(300);
  expect((await harness.app.inject({ method: 'POST', url: `${url}/shift-schedule`, headers, payload: SCHEDULE })).statusCode).toBe(201);
}

describe("a tenant-wide generation run's memory of the scheduled employees", () => {
  let clock = 0;
  let scheduled: ReturnType<typeof createScheduledEmployees>;

  beforeAll(async () => {
    const collection = harness.service.store.db.collection<StoredDocument<ShiftScheduleFields>>('shift_schedules');
    scheduled = createScheduledEmployees({ collection }, () => clock);
    await schedule('tenant-run', 'emp-1');
    await schedule('tenant-run', 'emp-3');
  });

  it('goes on from the ids its first page read for a minute, then reads them again', async () => {
    expect(await scheduled.page('tenant-run', undefined, 1)).toEqual(['emp-1']);
    await schedule('tenant-run', 'emp-2');
    clock += 59_999;
    expect(await scheduled.page('tenant-run', 'emp-1', 10)).toEqual(['emp-3']);
    clock += 1;
    expect(await scheduled.page('tenant-run', 'emp-1', 10)).toEqual(['emp-2', 'emp-3']);
  });

  it('keeps the ids of 16 tenants: a 17th drops the one read first, whose next page reads them again', async () => {
    const tenants = Array.from({ length: 16 }, (_, index) => `tenant-kept-${index}`);
    for (const tenant of tenants) await schedule(tenant, 'emp-a');
    for (const tenant of tenants) expect(await scheduled.page(tenant, undefined, 1)).toEqual(['emp-a']);
    await schedule(tenants[0]!, 'emp-b');
    await schedule(tenants[1]!, 'emp-b');
    expect(await scheduled.page(tenants[1]!, 'emp-a', 10)).toEqual([]);
    await schedule('tenant-kept-16', 'emp-a');
    expect(await scheduled.page('tenant-kept-16', undefined, 1)).toEqual(['emp-a']);
    // tenant-run and tenant-kept-0 were read first, and are dropped; tenant-kept-1 is still kept
    expect(await scheduled.page(tenants[1]!, 'emp-a', 10)).toEqual([]);
    expect(await scheduled.page(tenants[0]!, 'emp-a', 10)).toEqual(['emp-b']);
  });
});
