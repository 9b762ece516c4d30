import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The first `dir/name` that is an executable file, in the order of `dirs`. */
export async function findExecutable(name: string, dirs: readonly string[]): Promise<string | undefined> {
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not there or not executable: keep looking
    }
  }
  return undefined;
}
