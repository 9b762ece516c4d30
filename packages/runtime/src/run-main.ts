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
    await startService(definition, { signals: ['SIGTERM', 'SIGINT'], onShutdownTimeout: () => process.exit(1) });
  } catch (error) {
    // the logger may not exist yet (bad configuration): say what is wrong plainly and stop
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
}
