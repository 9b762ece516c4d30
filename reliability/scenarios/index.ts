import type { ScenarioReport, Size } from '../lib/report.ts';
import type { SuiteStack } from '../lib/suite-stack.ts';
import { crashUnderLoad } from './crash-under-load.ts';
import { hostileInput } from './hostile-input.ts';
import { races } from './races.ts';
import { serversRestarted } from './servers-restarted.ts';
import { tenantsAndAuth } from './tenants-and-auth.ts';

export type Scenario = (suite: SuiteStack, size: Size) => Promise<ScenarioReport>;

/** Every scenario by the name `npm run reliability -- <name>` selects, in the order a run takes them. */
export const SCENARIOS: Record<string, Scenario> = {
  'hostile-input': hostileInput,
  races,
  'tenants-and-auth': tenantsAndAuth,
  'crash-under-load': crashUnderLoad,
  // on servers of its own, which it stops: the run's stack is not used
  'servers-restarted': (_suite, size) => serversRestarted(size),
};
