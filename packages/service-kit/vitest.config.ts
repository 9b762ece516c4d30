import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: [fileURLToPath(import.meta.resolve('@rm/testkit/global-setup'))],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
