import type { ConfigSpec } from '@rm/service-kit';
import { homeBaseClaimsConfigSpec } from '@rm/service-kit/resources';

/** The service's own variables, beside the common ones (service-kit's serviceConfigSpec): where the home bases its deployments name are claimed. */
export const deploymentsConfigSpec = {
  ...homeBaseClaimsConfigSpec,
} as const satisfies ConfigSpec;
