import { defineConfig } from 'vitest/config';

// pure functions only: no servers to start; the JSON report is where scripts/test-summary.ts looks (@rm/testkit/vitest-config)
export default defineConfig({ test: { reporters: ['default', 'json'], outputFile: { json: '.test-results/vitest.json' } } });
