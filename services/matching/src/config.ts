import type { ConfigSpec } from '@rm/service-kit';
import { DEFAULT_EXACT_MAX_NONZEROS } from './domain/exact.js';

/** The matching engine's own variables, beside the common ones (service-kit's serviceConfigSpec). */
export const matchingConfigSpec = {
  /** Tenant partitions of the input stream; fixed once it holds events (see INPUTS_STREAM). */
  MATCHING_PARTITIONS: { type: 'int', min: 1, max: 1024, default: 16 },
  /** How long a replica's hold on a partition lasts without renewal. */
  MATCHING_LEASE_MS: { type: 'duration-ms', min: 300, default: 15_000 },
  /** This replica's name among the others (default: host name and a random suffix). */
  MATCHING_REPLICA_ID: { type: 'string', default: '' },
  /** The exact re-solve of a tenant starts once no event came for this long; 0: never. */
  MATCHING_RESOLVE_QUIET_MS: { type: 'duration-ms', min: 0, default: 2_000 },
  /** The exact re-solve's time per location component; past it, the best found is taken if it is better. */
  MATCHING_RESOLVE_TIME_LIMIT_S: { type: 'int', min: 1, max: 3600, default: 60 },
  /** The largest model (nonzeros) of a location component the exact re-solve takes up; larger ones stay with the incremental matcher. */
  MATCHING_EXACT_MAX_NONZEROS: { type: 'int', min: 1, max: 100_000_000, default: DEFAULT_EXACT_MAX_NONZEROS },
  /** A tenant with more inputs (entities of every kind) is not matched here; its inputs are still recorded. */
  MATCHING_TENANT_MAX_INPUTS: { type: 'int', min: 1, max: 100_000_000, default: 60_000 },
} as const satisfies ConfigSpec;
