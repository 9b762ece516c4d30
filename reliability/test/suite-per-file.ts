import { testServers } from '@rm/testkit';
import { afterAll, beforeAll } from 'vitest';
import { startSuiteStack, type SuiteStack } from '../lib/suite-stack.ts';

/** One stack for the test file, on the test run's servers; `suite()` is it once beforeAll has run. */
export function stackPerFile(): () => SuiteStack {
  let suite: SuiteStack | undefined;
  beforeAll(async () => {
    suite = await startSuiteStack(testServers());
  });
  afterAll(async () => {
    // what the services logged as errors explains a finding
    for (const [service, lines] of suite?.errorLines ?? []) for (const line of lines.slice(0, 5)) console.error(`[${service}] ${line}`);
    await suite?.stop();
  });
  return () => {
    if (suite === undefined) throw new Error('the stack has not started');
    return suite;
  };
}
