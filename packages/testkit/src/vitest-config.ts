import { fileURLToPath } from 'node:url';
import type { ViteUserConfig } from 'vitest/config';

/** Where each package's run leaves its JSON report; scripts/test.sh sums them into one line. */
export const TEST_REPORT_FILE = '.test-results/vitest.json';

/**
 * The vitest settings every package shares: real servers from the global setup (or MONGO_URL /
 * NATS_URL), timeouts that allow for starting them, and a JSON report beside the usual output.
 */
export function packageTestConfig(overrides: { testTimeout?: number; globalSetup?: string } = {}): ViteUserConfig {
  return {
    test: {
      globalSetup: [overrides.globalSetup ?? fileURLToPath(new URL('./global-setup.js', import.meta.url))],
      testTimeout: overrides.testTimeout ?? 30_000,
      hookTimeout: 60_000,
      reporters: ['default', 'json'],
      outputFile: { json: TEST_REPORT_FILE },
    },
  };
}
