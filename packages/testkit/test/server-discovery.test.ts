import { describe, expect, test } from 'vitest';
import { defaultServersDir, loadTestkitConfig, NoServerAvailableError, ServerStartError } from '../src/index.js';
import { startMongoServer } from '../src/mongo-server.js';
import { startNatsServer } from '../src/nats-server.js';
import { startServerProcess } from '../src/server-process.js';

const NOTHING_INSTALLED = loadTestkitConfig({ RM_SERVERS_DIR: '/nonexistent/servers', PATH: '/nonexistent/bin' });

describe('server discovery', () => {
  test('reads the servers directory from RM_SERVERS_DIR, defaulting to the per-user cache', () => {
    expect(loadTestkitConfig({ RM_SERVERS_DIR: '/opt/servers' }).serversBinDir).toBe('/opt/servers/bin');
    expect(loadTestkitConfig({}).serversBinDir).toBe(`${defaultServersDir()}/bin`);
    expect(defaultServersDir('/home/someone')).toBe('/home/someone/.cache/resource-management/servers');
  });

  test('reads the PostgreSQL server for FerretDB from RM_POSTGRES_URL, defaulting to the local one', () => {
    expect(loadTestkitConfig({}).postgresUrl).toBe('postgres://postgres@127.0.0.1:5432/postgres');
    expect(loadTestkitConfig({ RM_POSTGRES_URL: 'postgres://ci@db:5433/x' }).postgresUrl).toBe('postgres://ci@db:5433/x');
  });

  test('treats empty MONGO_URL and NATS_URL as unset', () => {
    expect(loadTestkitConfig({ MONGO_URL: '', NATS_URL: ' ' })).toMatchObject({
      mongoUrl: undefined,
      natsUrl: undefined,
    });
  });

  test('without binaries or a Docker engine, says to run scripts/ensure-servers.sh', async () => {
    await expect(startMongoServer(NOTHING_INSTALLED)).rejects.toThrow(NoServerAvailableError);
    await expect(startNatsServer({}, NOTHING_INSTALLED)).rejects.toThrow(/bash scripts\/ensure-servers\.sh/);
  });

  test('a server that dies while starting is reported with the end of its output', async () => {
    const starting = startServerProcess({
      name: 'broken-server',
      command: '/bin/sh',
      args: ['-c', 'echo "cannot open store: permission denied" >&2; exit 3'],
      port: 1,
    });
    await expect(starting).rejects.toThrow(ServerStartError);
    await expect(starting).rejects.toThrow(/exited with 3[\s\S]*cannot open store: permission denied/);
  });
});
