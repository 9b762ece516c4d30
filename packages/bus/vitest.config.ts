import { packageTestConfig } from '@rm/testkit/vitest-config';

// The NATS restart test writes 200 documents across a server restart.
export default packageTestConfig({ testTimeout: 60_000 });
