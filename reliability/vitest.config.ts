import { packageTestConfig } from '@rm/testkit/vitest-config';

// The short scenarios share one stack; each takes tens of seconds on 2 cores.
export default packageTestConfig({ testTimeout: 120_000 });
