import { packageTestConfig } from '@rm/testkit/vitest-config';

export default packageTestConfig();
