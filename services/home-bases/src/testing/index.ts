// @rm/home-bases/testing: how the tests of a service whose writes name home bases (employees,
// transport-resources, deployments) start it with a home-bases service of its own beside it. Never
// imported by the service.
import { startService, type ServiceDefinition } from '@rm/runtime';
import type { ConfigSpec } from '@rm/service-kit';
import { startServiceHarnessWithHomeBases, type Companions } from '@rm/testkit';
import { homeBasesService } from '../app.js';

/**
 * The service as the runtime runs it in production (not listening: the tests inject), harnessed over
 * fresh databases named after `prefix`, with a home-bases service and the `others` beside it (see
 * startServiceHarnessWithHomeBases).
 */
export function startBesideHomeBases<Collections, Spec extends ConfigSpec, Others extends Companions = Record<never, never>>(
  prefix: string,
  service: ServiceDefinition<Collections, Spec>,
  variables: Record<string, string> = {},
  others: Others = {} as Others,
) {
  return startServiceHarnessWithHomeBases(
    prefix,
    (env) => startService(service, { env, listen: false }),
    (env) => startService(homeBasesService, { env }),
    variables,
    others,
  );
}
