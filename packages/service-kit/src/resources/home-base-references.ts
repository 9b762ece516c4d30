import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { homeBaseReferences, type HomeBaseClaim, type Referrer, type Violation } from '@rm/contracts';
import { inWaves, isRefusal } from '@rm/store';
import { ServiceUnavailable, ValidationProblem } from '../errors.js';
import { INTERNAL_API_KEY_HEADER, internalApiKeyConfigSpec } from '../internal-api-key.js';
import { INTERNAL_PATH } from '../openapi.js';

/** The variables of a service whose resources name home bases. */
export const homeBaseClaimsConfigSpec = {
  /** The home-bases service's API base URL, like http://home-bases:3003/resource-management/v1. */
  HOME_BASES_URL: { type: 'url', protocols: ['http:', 'https:'], required: true },
  HOME_BASES_TIMEOUT_MS: { type: 'duration-ms', min: 100, default: 5_000 },
  ...internalApiKeyConfigSpec,
} as const;

/** Claims dropped or settled side by side, at most, for a write of many. */
const CLOSES_AT_ONCE = 8;

/** What a write returns: the resource it wrote, whose version settles the claim. */
interface Written {
  resource: { version: number };
}

/**
 * Writes that name home bases, in every service (DESIGN §8, issue 9): the home bases a body names
 * must exist in the tenant, and none may be deleted while something refers to it. The home-bases
 * service owns both; a write claims the home bases it names there first (a 400 naming each field
 * whose home base does not exist), then writes, then settles the claim with the version it wrote, or
 * drops it when the write was refused (after an outage it stays: the write may have committed). The
 * claim keeps the home bases from being deleted until that version's event has reached the
 * home-bases service's reference index.
 */
export interface HomeBaseClaims {
  write<W extends Written>(caller: ClaimCaller, referrer: Referrer, body: unknown, write: () => Promise<W>): Promise<W>;
  /** The same for resources written together: each one's claim first, then the write, which returns them in the same order. */
  writeMany<W extends Written>(caller: ClaimCaller, claimed: readonly ClaimedWrite[], write: () => Promise<W[]>): Promise<W[]>;
}

/** One resource of a write of many, as its claim names it. */
export interface ClaimedWrite {
  referrer: Referrer;
  body: unknown;
}

/** Who writes: the claim is made with the caller's own token (in its tenant), and what goes wrong is logged with its request. */
export interface ClaimCaller {
  /** The caller's `Authorization` header, passed on as it came. */
  authorization: string;
  log: FastifyBaseLogger;
}

/** The caller of a route, as the claims need it. */
export function claimCallerOf(request: FastifyRequest): ClaimCaller {
  return { authorization: request.headers.authorization ?? '', log: request.log };
}

export interface HomeBaseClaimsOptions {
  baseUrl: string;
  timeoutMs: number;
  /** INTERNAL_API_KEY: what the home-bases service asks of a caller of `/internal`. */
  internalApiKey: string;
}

/** The claims of one service, made at the home-bases service's `/internal/home-base-claims`. */
export function createHomeBaseClaims({ baseUrl, timeoutMs, internalApiKey }: HomeBaseClaimsOptions): HomeBaseClaims {
  const claimsUrl = `${baseUrl.replace(/\/$/, '')}${INTERNAL_PATH}/home-base-claims`;

  /** Calls the home-bases service with the caller's own token (the claim is in the caller's tenant) and the services' key. */
  async function call(caller: ClaimCaller, method: string, url: string, body: unknown): Promise<Response> {
    const headers: Record<string, string> = { authorization: caller.authorization, [INTERNAL_API_KEY_HEADER]: internalApiKey };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ServiceUnavailable('home bases cannot be checked right now; retry later', { cause: error });
    }
  }

  async function claim(caller: ClaimCaller, referrer: Referrer, body: unknown): Promise<string | undefined> {
    const references = homeBaseReferences(body);
    if (references.length === 0) return undefined;
    const response = await call(caller, 'POST', claimsUrl, { referrer, references });
    if (response.status === 201) return ((await response.json()) as HomeBaseClaim).claim_id;
    if (response.status === 400) {
      const problem = (await response.json()) as { violations?: Violation[] };
      if (problem.violations !== undefined) throw new ValidationProblem(problem.violations);
    }
    throw new ServiceUnavailable(`home bases cannot be checked right now (${response.status}); retry later`);
  }

  /** Best effort: a claim left unsettled only keeps its home bases from deletion longer (see the reference index). */
  async function close(caller: ClaimCaller, claimId: string, version: number | undefined): Promise<void> {
    const url = `${claimsUrl}/${claimId}`;
    try {
      const response = await (version === undefined ? call(caller, 'DELETE', url, undefined) : call(caller, 'PUT', url, { version }));
      await response.body?.cancel();
      if (!response.ok) caller.log.warn({ claimId, status: response.status }, 'home-base claim left open');
    } catch (err) {
      caller.log.warn({ err, claimId }, 'home-base claim left open');
    }
  }

  async function writeMany<W extends Written>(caller: ClaimCaller, claimed: readonly ClaimedWrite[], write: () => Promise<W[]>): Promise<W[]> {
    /** The claims made, each with the index of its resource among those written. */
    const claims: { claimId: string; index: number }[] = [];
    const dropAll = () => inWaves(claims, CLOSES_AT_ONCE, ({ claimId }) => close(caller, claimId, undefined));
    try {
      for (const [index, { referrer, body }] of claimed.entries()) {
        const claimId = await claim(caller, referrer, body);
        if (claimId !== undefined) claims.push({ claimId, index });
      }
    } catch (error) {
      // nothing was written: the claims made so far go
      await dropAll();
      throw error;
    }
    let written: W[];
    try {
      written = await write();
    } catch (error) {
      // a refusal wrote nothing; after an outage the write may have committed, so the claims stay
      if (isRefusal(error)) await dropAll();
      else if (claims.length > 0) caller.log.warn({ claimIds: claims.map(({ claimId }) => claimId) }, 'home-base claims left open: the write may have happened');
      throw error;
    }
    // The answer does not wait for the settlements: the claims hold either way, and one that never
    // settles is only swept later (see the home-bases README).
    void inWaves(claims, CLOSES_AT_ONCE, ({ claimId, index }) => close(caller, claimId, written[index]!.resource.version));
    return written;
  }

  return {
    async write(caller, referrer, body, write) {
      const [written] = await writeMany(caller, [{ referrer, body }], async () => [await write()]);
      return written!;
    },
    writeMany,
  };
}
