import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { TooManyTenantRequests } from '../errors.js';
import type { RefusalDelay } from './refusal-delay.js';
import { WINDOW_SECONDS, type TenantRequestRate } from './tenant-request-rate.js';

/** The policy's name in the headers: one quota per tenant. */
const POLICY = '"tenant"';

/**
 * The API's per-tenant request rate: the limit in the caller's token (`limits.requestsPerSecond`, set by
 * the gateway when it issued it) or `defaultLimit`; over it, 429. Every answer tells the caller where it
 * stands with the IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-10): the policy
 * (`q` requests in `w` seconds) and what is left of it (`r`, and `t` seconds until it is whole again at
 * the latest). A refusal is answered once its second has passed (refusal-delay.ts).
 */
export function limitTenantRequests(rate: TenantRequestRate, defaultLimit: number, refusals: RefusalDelay): onRequestHookHandler {
  return async (request, reply) => {
    const limit = tenantLimitOf(request, defaultLimit);
    const { admitted, remaining, retryAfterSeconds = WINDOW_SECONDS } = rate.take(request.auth.tenant, limit);
    const headers = {
      'RateLimit-Policy': `${POLICY};q=${limit};w=${WINDOW_SECONDS}`,
      RateLimit: `${POLICY};r=${remaining};t=${admitted ? WINDOW_SECONDS : retryAfterSeconds}`,
    };
    if (!admitted) {
      await refusals.wait();
      throw new TooManyTenantRequests(limit, retryAfterSeconds, headers);
    }
    reply.headers(headers);
  };
}

/** The caller's tenant's requests per second: as its token says, else `defaultLimit`. */
export function tenantLimitOf(request: FastifyRequest, defaultLimit: number): number {
  return request.auth.limits?.requestsPerSecond ?? defaultLimit;
}
