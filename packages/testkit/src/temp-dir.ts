import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  path: string;
  remove(): Promise<void>;
}

/** A throw-away directory for a server's data. */
export async function createTempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `rm-testkit-${prefix}-`));
  return {
    path,
    remove: () => rm(path, { recursive: true, force: true, maxRetries: 3 }),
  };
}
