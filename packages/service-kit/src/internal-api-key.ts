import { createHash, timingSafeEqual } from 'node:crypto';
import type { onRequestHookHandler } from 'fastify';
import { HttpProblem } from './errors.js';

/**
 * The services' own calls under `/internal` (the home-base claims) carry, beside their caller's token,
 * which says the tenant, this key (INTERNAL_API_KEY, shared by the services): an integrator's token
 * alone, from anyone who reaches a service's port, opens nothing there.
 */
export const INTERNAL_API_KEY_HEADER = 'x-internal-api-key';

/** The variable of every service that calls `/internal` or answers it. */
export const internalApiKeyConfigSpec = {
  /** At least 32 random characters, the same in every service (a Secret). */
  INTERNAL_API_KEY: { type: 'secret', minLength: 32, required: true },
} as const;

/** A hook that lets through only requests carrying the key; the others get a 403 naming the header. */
export function requireInternalApiKey(key: string): onRequestHookHandler {
  const expected = digest(key);
  return async (request) => {
    const given = request.headers[INTERNAL_API_KEY_HEADER];
    // compared as digests: the same length whatever was sent, in constant time
    if (typeof given === 'string' && timingSafeEqual(digest(given), expected)) return;
    throw new HttpProblem({
      status: 403,
      title: 'Forbidden',
      detail: `Only the services may call ${request.url.split('?')[0]}: the ${INTERNAL_API_KEY_HEADER} header is missing or wrong.`,
      code: 'RM_INTERNAL_ONLY',
    });
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
