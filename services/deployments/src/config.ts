import type { ConfigSpec } from '@rm/service-kit';
import { homeBaseClaimsConfigSpec } from '@rm/service-kit/resources';

/**
 * The service's own variables, beside the common ones (service-kit's serviceConfigSpec): where the
 * home bases its deployments name are claimed, and the owners of the employees and transport
 * resources its writes name, asked about one not known here from their events (ResourceChecks).
 */
export const deploymentsConfigSpec = {
  ...homeBaseClaimsConfigSpec,
  /** The employees service's API base URL, like http://employees:3000/resource-management/v1. */
  EMPLOYEES_URL: { type: 'url', protocols: ['http:', 'https:'], required: true },
  /** The transport-resources service's API base URL, like http://transport-resources:3000/resource-management/v1. */
  TRANSPORT_RESOURCES_URL: { type: 'url', protocols: ['http:', 'https:'], required: true },
  /** Longest an owner's answer is waited for; then the write is a 503. */
  OWNERS_TIMEOUT_MS: { type: 'duration-ms', min: 100, default: 5_000 },
} as const satisfies ConfigSpec;
