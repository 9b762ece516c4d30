// The short servers-restarted scenario: it starts a nats-server, a FerretDB and a stack of its own, since
// it stops the servers, so it needs none of the run's.
import { describe, expect, it } from 'vitest';
import { serversRestarted } from '../scenarios/servers-restarted.ts';

describe("the whole stack while nats-server, then FerretDB, then FerretDB's PostgreSQL go away under write load (short version)", () => {
  it('recovers without a restart, refuses only with 503 meanwhile, and loses no acknowledged write or event', async () => {
    const report = await serversRestarted('short');
    expect(report.findings).toEqual([]);
    const row = (measure: string) => report.rows.find(([name]) => name === measure)?.[1];
    expect(row('lost writes')).toBe(0);
    expect(row("copies behind the last version (deployments' known resources, home-bases' references)")).toBe(0);
    expect(row('service processes that exited')).toBe(0);
  }, 300_000);
});
