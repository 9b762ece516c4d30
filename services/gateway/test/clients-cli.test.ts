import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revocationDigest } from '@rm/service-kit';
import { testServers, uniqueName, waitFor } from '@rm/testkit';
import { basic, dropDatabase, FORM, freshIp, startGateway, type GatewayHarness } from './helpers.js';

// The built command, as `npm run clients` and the container run it.
const CLI = fileURLToPath(new URL('../dist/cli/clients.js', import.meta.url));
const database = uniqueName('gateway_cli');
let gateway: GatewayHarness;

beforeAll(async () => {
  gateway = await startGateway({ MONGO_DB: database });
});

afterAll(async () => {
  await gateway.close();
  await dropDatabase(database);
});

async function clients(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', MONGO_URL: testServers().mongoUrl, MONGO_DB: database, CLIENT_SECRET_HASH_COST: '10', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

async function tokenStatus(clientId: string, secret: string): Promise<number> {
  const response = await gateway.fetch('/oauth2/token', { method: 'POST', ip: freshIp(), headers: { ...FORM, Authorization: basic(clientId, secret) }, body: 'grant_type=client_credentials' });
  return response.status;
}

describe('npm run clients', () => {
  it('creates a tenant and a client whose secret, printed once, gets a token; lists, rotates, disables and enables it', async () => {
    const tenant = uniqueName('acme');
    expect((await clients(['create-tenant', tenant])).code).toBe(0);
    const created = await clients(['create-client', '--tenant', tenant, '--id', `${tenant}-planner`]);
    expect(created.code).toBe(0);
    const secret = /client_secret: (\S+)/.exec(created.stdout)?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tokenStatus(`${tenant}-planner`, secret!)).toBe(200);

    const listed = await clients(['list', '--tenant', tenant]);
    expect(listed.stdout).toContain(`${tenant}-planner\ttenant=${tenant}\tenabled`);
    expect(listed.stdout).not.toContain(secret);

    const rotated = /client_secret: (\S+)/.exec((await clients(['rotate-secret', `${tenant}-planner`])).stdout)?.[1];
    expect(rotated).toBeDefined();
    expect(await tokenStatus(`${tenant}-planner`, secret!)).toBe(401);
    expect(await tokenStatus(`${tenant}-planner`, rotated!)).toBe(200);

    expect((await clients(['disable', `${tenant}-planner`])).code).toBe(0);
    expect(await tokenStatus(`${tenant}-planner`, rotated!)).toBe(401);
    expect((await clients(['enable', `${tenant}-planner`])).code).toBe(0);
    expect(await tokenStatus(`${tenant}-planner`, rotated!)).toBe(200);
  });

  it('ensures a demo client idempotently with the secret from RM_CLIENT_SECRET', async () => {
    const secret = 'demo-secret-0123456789';
    for (let run = 0; run < 2; run += 1) {
      const result = await clients(['ensure', '--tenant', 'demo_cli', '--id', 'demo-cli-client'], { RM_CLIENT_SECRET: secret });
      expect(result.code).toBe(0);
    }
    expect(await tokenStatus('demo-cli-client', secret)).toBe(200);
  });

  it("sets a tenant's own limits, lists them, gives one back to the gateway's setting, and names a wrong value", async () => {
    const tenant = uniqueName('limited');
    expect((await clients(['create-tenant', tenant])).code).toBe(0);
    const set = await clients(['set-limits', tenant, '--requests-per-second', '20', '--employees', '500']);
    expect(set.code).toBe(0);
    expect((await clients(['list-tenants'])).stdout).toContain(`${tenant}\trequestsPerSecond=20\temployees=500\n`);

    expect((await clients(['set-limits', tenant, '--employees', 'default'])).code).toBe(0);
    expect((await clients(['list-tenants'])).stdout).toContain(`${tenant}\trequestsPerSecond=20\n`);

    const wrong = await clients(['set-limits', tenant, '--availabilities', '2.5']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--availabilities is a whole number of at least 1, or 'default'; got '2.5'");
    const missing = await clients(['set-limits', 'no_such_tenant', '--employees', '3']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("there is no tenant 'no_such_tenant'");
  });

  it("revokes a client's tokens, a tenant's, and a disabled client's, and names a client or tenant that does not exist", async () => {
    const tenant = uniqueName('revoked');
    await clients(['create-tenant', tenant]);
    await clients(['create-client', '--tenant', tenant, '--id', `${tenant}-a`]);
    await clients(['create-client', '--tenant', tenant, '--id', `${tenant}-b`]);
    const byClient = await clients(['revoke', '--client', `${tenant}-a`]);
    expect(byClient.code).toBe(0);
    expect(byClient.stdout).toMatch(new RegExp(`tokens of client ${tenant}-a issued until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z revoked`));
    expect((await clients(['revoke', '--tenant', tenant])).code).toBe(0);
    expect((await clients(['disable', `${tenant}-b`])).stdout).toContain(`client ${tenant}-b disabled, its tokens revoked`);
    // the gateway reads them within its refresh, and serves them by digest
    await waitFor('the gateway to serve the revocations', async () => {
      const read = (await (await gateway.fetch('/oauth2/revocations')).json()) as { clients: Record<string, number>; tenants: Record<string, number> };
      return [`${tenant}-a`, `${tenant}-b`].every((client) => revocationDigest(client) in read.clients) && revocationDigest(tenant) in read.tenants;
    });

    const neither = await clients(['revoke']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('revoke takes one of --client, --tenant and --key');
    expect((await clients(['revoke', '--key', 'no-such-kid'])).stderr).toContain("there is no signing key 'no-such-kid'");
    expect((await clients(['revoke', '--client', 'no-such-client'])).stderr).toContain("there is no client 'no-such-client'");
    expect((await clients(['revoke', '--tenant', 'no_such_tenant'])).stderr).toContain("there is no tenant 'no_such_tenant'");
  });

  it('names the mistake: a tenant id events cannot carry, an unknown tenant or client, an unknown command', async () => {
    const badTenant = await clients(['create-tenant', 'acme.corp']);
    expect(badTenant.code).toBe(1);
    expect(badTenant.stderr).toContain('tenant ids are 1 to 64 letters, digits, _ or -');
    expect((await clients(['create-client', '--tenant', 'no_such_tenant'])).stderr).toContain("there is no tenant 'no_such_tenant'");
    expect((await clients(['disable', 'no-such-client'])).stderr).toContain("there is no client 'no-such-client'");
    const unknown = await clients(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('usage: npm run clients');
  });
});
