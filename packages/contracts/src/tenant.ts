import { Type } from '@sinclair/typebox';

/**
 * A tenant id is one token of every event subject (`rm.<service>.<tenant>.…`) and a part of every
 * document id (`<tenant>/<key>`), so it holds neither `.`, `*`, `>`, whitespace nor `/`.
 */
export const TENANT_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

const tenant = new RegExp(TENANT_PATTERN);

export function isTenantId(value: string): boolean {
  return tenant.test(value);
}

export const TenantId = Type.String({
  pattern: TENANT_PATTERN,
  description: 'The tenant of the client: 1 to 64 characters from A-Z, a-z, 0-9, _ and -.',
});

/**
 * What one tenant may use: the gateway's defaults, or the tenant's own (`npm run clients -- set-limits`).
 * The gateway puts them in every access token it issues (claim `limits`), so that each service enforces
 * them without asking it.
 */
export interface TenantLimits {
  /** API requests per second, across every gateway replica. */
  requestsPerSecond: number;
  /** Records stored at most, of each kind. */
  employees: number;
  transportResources: number;
  availabilities: number;
}

export const TENANT_LIMIT_NAMES = ['requestsPerSecond', 'employees', 'transportResources', 'availabilities'] as const satisfies readonly (keyof TenantLimits)[];

/** The limits in a token's `limits` claim; one that is missing or not a positive integer is not limited. */
export function tenantLimitsOf(claim: unknown): Partial<TenantLimits> {
  if (typeof claim !== 'object' || claim === null) return {};
  const limits: Partial<TenantLimits> = {};
  for (const name of TENANT_LIMIT_NAMES) {
    const value = (claim as Record<string, unknown>)[name];
    if (Number.isSafeInteger(value) && (value as number) > 0) limits[name] = value as number;
  }
  return limits;
}
