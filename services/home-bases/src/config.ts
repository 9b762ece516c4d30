import { internalApiKeyConfigSpec, type ConfigSpec } from '@rm/service-kit';

/** The service's own variables, beside the common ones (service-kit's serviceConfigSpec): the key the other services' claims must carry. */
export const homeBasesConfigSpec = {
  ...internalApiKeyConfigSpec,
} as const satisfies ConfigSpec;
