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
