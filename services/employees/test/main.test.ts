import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestIssuer, findFreePort, NOBODY_LISTENS_URL, TEST_INTERNAL_API_KEY, testNatsPassword, testServers, uniqueName, waitFor } from '@rm/testkit';

// The built entry point, as `npm start` and the container run it.
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

function run(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

async function statusOf(url: string): Promise<number> {
  return fetch(url).then((response) => response.status, () => 0);
}

describe('main', () => {
  it('refuses to start with a bad configuration, naming every missing or bad variable', async () => {
    const { child, output } = run({ PORT: 'eighty', CURSOR_SECRET: 'short' });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    for (const variable of ['PORT', 'MONGO_URL', 'NATS_URL', 'AUTH_JWKS_URL', 'CURSOR_SECRET', 'HOME_BASES_URL', 'INTERNAL_API_KEY']) {
      expect(output()).toContain(variable);
    }
    expect(output()).not.toContain('short');
  });

  it('starts against the real servers, answers its probes, and shuts down cleanly on SIGTERM', async () => {
    const issuer = await createTestIssuer();
    const jwks = await issuer.serveJwks();
    const port = await findFreePort();
    const origin = `http://127.0.0.1:${port}`;
    const { child, output } = run({
      HOST: '127.0.0.1',
      PORT: String(port),
      MONGO_URL: testServers().mongoUrl,
      MONGO_DB: uniqueName('employees_main'),
      NATS_URL: testServers().natsUrl,
      NATS_PASSWORD: testNatsPassword(),
      AUTH_JWKS_URL: jwks.url,
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: issuer.audience,
      CURSOR_SECRET: 'main-test-cursor-secret-of-32-characters',
      // only writes naming a home base call it: starting and the probes do not
      HOME_BASES_URL: NOBODY_LISTENS_URL,
      INTERNAL_API_KEY: TEST_INTERNAL_API_KEY,
    });
    try {
      await waitFor('the service to be ready', async () => (await statusOf(`${origin}/readyz`)) === 200, 20_000);
      expect(await statusOf(`${origin}/readyz`)).toBe(200);
      expect(await statusOf(`${origin}/healthz`)).toBe(200);

      const token = await issuer.mint({ tenant: 'main-test' });
      const ping = await fetch(`${origin}/resource-management/v1/ping`, { headers: { authorization: `Bearer ${token}` } });
      expect(await ping.text()).toBe('pong');

      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      expect(output()).toContain('"outcome":"clean"');
    } finally {
      await jwks.close();
    }
  });
});
