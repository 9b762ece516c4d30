import type { ScenarioReport, Size } from '../lib/report.ts';
import type { SuiteStack } from '../lib/suite-stack.ts';
import { crashUnderLoad } from './crash-under-load.ts';
import { forgedEvents } from './forged-events.ts';
import { headerRedos } from './header-redos.ts';
import { hostileInput } from './hostile-input.ts';
import { importUnderCrashes } from './import-under-crashes.ts';
import { races } from './races.ts';
import { rateLimitFairness } from './rate-limit-fairness.ts';
import { serversRestarted } from './servers-restarted.ts';
import { slowHeaders } from './slow-headers.ts';
import { spoofedForwardedFor } from './spoofed-forwarded-for.ts';
import { tenantsAndAuth } from './tenants-and-auth.ts';

/** A scenario at a size; it asks for the run's stack, which starts when the first scenario needs it. */
export type Scenario = (runStack: () => Promise<SuiteStack>, size: Size) => Promise<ScenarioReport>;

/** Every scenario by the name `npm run reliability -- <name>` selects, in the order a run takes them. */
export const SCENARIOS: Record<string, Scenario> = {
  'hostile-input': async (runStack, size) => hostileInput(await runStack(), size),
  races: async (runStack, size) => races(await runStack(), size),
  'tenants-and-auth': async (runStack) => tenantsAndAuth(await runStack()),
  'forged-events': async (runStack) => forgedEvents(await runStack()),
  'rate-limit-fairness': async (runStack, size) => rateLimitFairness(await runStack(), size),
  'header-redos': async (runStack, size) => headerRedos(await runStack(), size),
  'slow-headers': async (runStack, size) => slowHeaders(await runStack(), size),
  'spoofed-forwarded-for': async (runStack) => spoofedForwardedFor(await runStack()),
  'crash-under-load': async (runStack, size) => crashUnderLoad(await runStack(), size),
  'import-under-crashes': async (runStack, size) => importUnderCrashes(await runStack(), size),
  // on servers of its own, which it stops: the run's stack is not used
  'servers-restarted': (_runStack, size) => serversRestarted(size),
};
