import { describe, expect, it } from 'vitest';
import { createTenantQuota, QuotaReached } from '../src/tenant-quota.js';

/** A quota over a count the test sets, on a clock it moves; counts how often the records are read. */
function quotaOver(records: Map<string, number>) {
  const clock = { now: 0 };
  let reads = 0;
  const quota = createTenantQuota({
    limit: 'employees',
    kind: 'employees',
    count: async (tenant) => {
      reads += 1;
      return records.get(tenant) ?? 0;
    },
    recountMs: 30_000,
    now: () => clock.now,
  });
  return { quota, clock, reads: () => reads };
}

const adds = async () => true;
const auth = (tenant: string, employees?: number) => ({ tenant, clientId: 'c', ...(employees === undefined ? {} : { limits: { employees } }) });

describe('a tenant quota', () => {
  it('counts the records once, adds the creates it is told of, and refuses at the quota', async () => {
    const records = new Map([['t', 1]]);
    const { quota, reads } = quotaOver(records);
    await quota.admit(auth('t', 3), adds);
    quota.added('t');
    await quota.admit(auth('t', 3), adds);
    quota.added('t');
    await expect(quota.admit(auth('t', 3), adds)).rejects.toBeInstanceOf(QuotaReached);
    expect(reads()).toBe(1);
  });

  it('lets a write through at the quota when it adds nothing (an update)', async () => {
    const { quota } = quotaOver(new Map([['t', 5]]));
    await expect(quota.admit(auth('t', 5), async () => false)).resolves.toBeUndefined();
    await expect(quota.admit(auth('t', 5), adds)).rejects.toBeInstanceOf(QuotaReached);
  });

  it('reserves the records of a write of many only if they all fit, counting them at once until given back', async () => {
    const { quota, clock } = quotaOver(new Map([['t', 3]]));
    expect(await quota.reserve(auth('t', 5), 3)).toBeUndefined();
    const reserved = await quota.reserve(auth('t', 5), 2);
    expect(reserved).toBeDefined();
    // the two reserved count: nothing more fits, as for a single create
    expect(await quota.reserve(auth('t', 5), 1)).toBeUndefined();
    await expect(quota.admit(auth('t', 5), adds)).rejects.toBeInstanceOf(QuotaReached);
    // given back by a write that was refused, they fit again
    reserved!.release();
    const again = await quota.reserve(auth('t', 5), 2);
    expect(again).toBeDefined();
    // at the quota for a second, the records are counted again (3: the reserved write never came) ...
    clock.now += 1_000;
    expect(await quota.reserve(auth('t', 5), 1)).toBeDefined();
    // ... and giving back what the count before held leaves this one as it is (4)
    again!.release();
    expect(await quota.reserve(auth('t', 5), 2)).toBeUndefined();
    expect(await quota.reserve(auth('t', 5), 1)).toBeDefined();
    expect(await quota.reserve(auth('t'), 1_000)).toBeDefined();
  });

  it('counts again after the interval, and within a second while at the quota', async () => {
    const records = new Map([['t', 2]]);
    const { quota, clock, reads } = quotaOver(records);
    await expect(quota.admit(auth('t', 2), adds)).rejects.toBeInstanceOf(QuotaReached);
    records.set('t', 1);
    clock.now += 500;
    await expect(quota.admit(auth('t', 2), adds)).rejects.toBeInstanceOf(QuotaReached);
    clock.now += 500;
    await quota.admit(auth('t', 2), adds);
    expect(reads()).toBe(2);

    await quota.admit(auth('t', 100), adds);
    clock.now += 30_000;
    await quota.admit(auth('t', 100), adds);
    expect(reads()).toBe(3);
  });

  it("counts a tenant's records once for writes that arrive while a count is under way", async () => {
    const { quota, reads } = quotaOver(new Map([['t', 1]]));
    await Promise.all([quota.admit(auth('t', 5), adds), quota.admit(auth('t', 5), adds), quota.admit(auth('t', 5), adds)]);
    expect(reads()).toBe(1);
  });

  it('neither counts nor refuses when the token states no quota', async () => {
    const { quota, reads } = quotaOver(new Map([['t', 1_000]]));
    await quota.admit(auth('t'), adds);
    expect(reads()).toBe(0);
  });
});
