import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '@rm/bus';
import { createLogger } from '@rm/service-kit';
import { testNatsPassword, testServers, uniqueName } from '@rm/testkit';
import { createLineRate } from '../src/import/line-rate.js';
import { startTenantRequestRate, type TenantRequestRate } from '../src/limits/tenant-request-rate.js';

const logger = createLogger({ level: 'silent', name: 'line-rate-test' });
let nc: NatsConnection;
let rate: TenantRequestRate;
/** The rate's clock, which only the test moves: a line that waits cannot be let through by time passing. */
const clock = { now: 1_000_000_000_000 };

beforeAll(async () => {
  nc = await connectNats({ servers: testServers().natsUrl, access: { user: 'gateway', password: testNatsPassword() }, name: 'line-rate-test', logger, attempts: 1 });
  rate = startTenantRequestRate({ nc, logger, now: () => clock.now });
});

afterAll(async () => {
  await rate?.stop();
  await nc?.close();
});

/** Whether each promise has settled, after the waiting lines have asked the rate a few times more. */
async function settled(promises: Promise<unknown>[]): Promise<boolean[]> {
  const done = promises.map(() => false);
  promises.forEach((promise, index) => void promise.then(() => (done[index] = true)));
  await new Promise((resolve) => setTimeout(resolve, 350));
  return done;
}

describe("an import's lines and the tenant's request rate", () => {
  it('take what single calls would have had, and wait for the rate instead of being refused, in the order they came', async () => {
    const tenant = uniqueName('t');
    const lines = createLineRate({ rate, tenant, limit: 3, signal: new AbortController().signal });
    // the import's own request
    expect(rate.take(tenant, 3).admitted).toBe(true);
    const taken = [lines.take(), lines.take(), lines.take(), lines.take()];
    expect(await settled(taken)).toEqual([true, true, false, false]);
    // a single call of the tenant meanwhile is refused: the lines took the rest of the second
    expect(rate.take(tenant, 3).admitted).toBe(false);

    // the next second: two single calls come first, and the line that asked first takes what is left
    clock.now += 1_000;
    expect(rate.take(tenant, 3).admitted).toBe(true);
    expect(rate.take(tenant, 3).admitted).toBe(true);
    expect(await settled(taken)).toEqual([true, true, true, false]);
    clock.now += 1_000;
    expect(await settled(taken)).toEqual([true, true, true, true]);
  });

  it('stop waiting once the import is over', async () => {
    const tenant = uniqueName('t');
    const over = new AbortController();
    const lines = createLineRate({ rate, tenant, limit: 1, signal: over.signal });
    await lines.take();
    const waiting = lines.take();
    expect(await settled([waiting])).toEqual([false]);
    over.abort();
    await waiting;
  });
});
