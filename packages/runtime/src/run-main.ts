import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, type ConfigSpec } from '@rm/service-kit';
import type { ServiceDefinition } from './service-definition.js';
import { startService } from './start-service.js';

/**
 * The whole of a service's main.ts: runs it from process.env, listening, until SIGTERM or SIGINT
 * start the graceful shutdown. A bad configuration or a failed start stops the process with a
 * message naming the problem; only here may the process exit.
 */
export async function runMain<Collections, Spec extends ConfigSpec>(definition: ServiceDefinition<Collections, Spec>): Promise<void> {
  try {
    await startService(definition, { signals: ['SIGTERM', 'SIGINT'], onShutdownTimeout: () => process.exit(1), version: entryPackageVersion() });
  } catch (error) {
    // the logger may not exist yet (bad configuration): say what is wrong plainly and stop
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
}

/** The version in the package.json nearest above the entry script (services/<name>/dist/main.js: the service's). */
function entryPackageVersion(): string | undefined {
  const entry = process.argv[1];
  if (entry === undefined) return undefined;
  for (let directory = dirname(entry); ; directory = dirname(directory)) {
    try {
      return (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version?: string }).version;
    } catch {
      // none here (or unreadable): look further up, until the root
      if (dirname(directory) === directory) return undefined;
    }
  }
}
