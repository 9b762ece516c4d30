import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTenantId, tenantLimitsOf, type TenantLimits } from '@rm/contracts';
import { credentialsOf, MAX_AUTHORIZATION_LENGTH } from './authorization-header.js';
import { decodeCanonicalBase64url } from './base64url.js';
import { ServiceUnavailable, Unauthorized } from './errors.js';
import { revocationDigest, type RevocationCheck } from './token-revocations.js';

/** Who is calling: every query is scoped by `tenant` (DESIGN §4). */
export interface AuthContext {
  tenant: string;
  clientId: string;
  /** The tenant's limits, as the gateway put them in the token (claim `limits`); absent in a token without them. */
  limits?: Partial<TenantLimits>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authenticate hook on every route under the service's base path. */
    auth: AuthContext;
  }
}

export type TokenVerifier = (token: string) => Promise<AuthContext>;

export interface TokenVerifierOptions {
  /** The issuer's key set URL; fetched when a `kid` is unknown, cached in between. */
  jwksUrl?: string;
  /** A fixed key set instead of `jwksUrl`. */
  jwks?: JSONWebKeySet;
  /** The issuer's own keys as they are now, instead of `jwksUrl` (the gateway, which signs). */
  getKey?: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  /** Pinned: a token signed with anything else is refused (default: ES256, which the gateway signs with). */
  algorithms?: string[];
  /** Allowed clock skew between the issuer and us. */
  clockToleranceSeconds?: number;
  /** Verified tokens remembered until they expire (default 10,000; 0 turns it off). */
  cacheSize?: number;
  /** Tokens revoked before they expire (the issuer's revocation list), checked on every request. */
  revocations?: RevocationCheck;
}

/** The `typ` header of the access tokens the gateway issues (RFC 9068 §2.1). */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** The token was presented but is not acceptable; `description` is safe for `WWW-Authenticate`. */
export class InvalidTokenError extends Error {
  readonly code = 'RM_INVALID_TOKEN';
  readonly statusCode = 401;
  readonly description: string;
  constructor(description: string, options?: ErrorOptions) {
    super(description, options);
    this.name = 'InvalidTokenError';
    this.description = description;
  }
}

const CLAIM_DESCRIPTIONS: Record<string, string> = {
  typ: 'the token is not an access token (typ at+jwt)',
  iss: 'unexpected issuer',
  aud: 'unexpected audience',
  nbf: 'the token is not yet valid',
};

/**
 * Verifies bearer tokens against the issuer's keys with issuer, audience, expiry and algorithm
 * checked. Create it once per process: the remote key set caches keys between requests.
 */
export function createTokenVerifier({
  jwksUrl,
  jwks,
  getKey,
  issuer,
  audience,
  algorithms = ['ES256'],
  clockToleranceSeconds = 5,
  cacheSize = 10_000,
  revocations,
}: TokenVerifierOptions): TokenVerifier {
  const keys = getKey ?? keySet(jwksUrl, jwks);
  const verified = createVerifiedTokenCache(cacheSize);
  const unlessRevoked = (entry: VerifiedToken): AuthContext => {
    if (revocations?.isRevoked(entry) === true) throw new InvalidTokenError('the token has been revoked');
    return entry.auth;
  };

  return async function verifyToken(token) {
    const known = verified.get(token);
    if (known !== undefined) return unlessRevoked(known);
    // A token is taken only as the issuer spelled it: jose's decoder, like Node's, would also read
    // padded or otherwise respelled parts as the same bytes.
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((part) => decodeCanonicalBase64url(part) !== undefined)) {
      throw new InvalidTokenError('malformed token');
    }
    let payload;
    let protectedHeader;
    try {
      ({ payload, protectedHeader } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms,
        // an access token (RFC 9068), as the gateway issues: not another JWT of the same issuer's keys
        typ: ACCESS_TOKEN_TYPE,
        clockTolerance: clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw verificationFailure(error);
    }
    const { tenant, sub } = payload;
    if (typeof tenant !== 'string' || tenant === '') throw new InvalidTokenError('the token has no tenant claim');
    // The tenant becomes a subject token and a part of document ids (contracts: tenant.ts).
    if (!isTenantId(tenant)) throw new InvalidTokenError('the tenant claim is not a valid tenant id');
    if (typeof sub !== 'string' || sub === '') throw new InvalidTokenError('the token has no sub claim');
    const auth: AuthContext = { tenant, clientId: sub, ...(payload.limits === undefined ? {} : { limits: tenantLimitsOf(payload.limits) }) };
    const entry: VerifiedToken = {
      auth,
      expiresAt: (payload.exp as number) * 1000,
      issuedAt: typeof payload.iat === 'number' ? payload.iat : 0,
      kid: protectedHeader.kid,
      clientDigest: revocationDigest(sub),
      tenantDigest: revocationDigest(tenant),
    };
    verified.set(token, entry);
    return unlessRevoked(entry);
  };
}

/** A token that verified, with what its revocation is checked by. */
interface VerifiedToken {
  auth: AuthContext;
  expiresAt: number;
  /** `iat`, in seconds. */
  issuedAt: number;
  /** The key that signed it. */
  kid: string | undefined;
  clientDigest: string;
  tenantDigest: string;
}

/**
 * A client reuses its token for minutes, and a signature check costs a fifth of a millisecond: a
 * token that verified stays verified until its `exp` (keys are retired only after every token
 * they signed has expired); only its revocation is checked again each time. Oldest entries go first
 * when it is full; refusals are never kept.
 */
function createVerifiedTokenCache(size: number) {
  const entries = new Map<string, VerifiedToken>();
  return {
    get(token: string): VerifiedToken | undefined {
      const entry = entries.get(token);
      if (entry === undefined) return undefined;
      if (entry.expiresAt > Date.now()) return entry;
      entries.delete(token);
      return undefined;
    },
    set(token: string, entry: VerifiedToken): void {
      if (size === 0) return;
      if (entries.size >= size) entries.delete(entries.keys().next().value!);
      entries.set(token, entry);
    },
  };
}

function keySet(jwksUrl: string | undefined, jwks: JSONWebKeySet | undefined): JWTVerifyGetKey {
  if (jwks !== undefined) return createLocalJWKSet(jwks);
  if (jwksUrl !== undefined) return createRemoteJWKSet(new URL(jwksUrl));
  throw new TypeError('createTokenVerifier needs jwksUrl, jwks or getKey');
}

/** Token faults become InvalidTokenError; an unreachable key set is our fault, not the caller's. */
function verificationFailure(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('the token has expired', { cause: error });
  if (error instanceof errors.JWTClaimValidationFailed) {
    const description =
      error.reason === 'missing' ? `the token has no ${error.claim} claim` : CLAIM_DESCRIPTIONS[error.claim] ?? `invalid ${error.claim} claim`;
    return new InvalidTokenError(description, { cause: error });
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new InvalidTokenError('signing algorithm not allowed', { cause: error });
  if (error instanceof errors.JWKSNoMatchingKey) return new InvalidTokenError('unknown signing key', { cause: error });
  if (error instanceof errors.JWKSMultipleMatchingKeys) return new InvalidTokenError('ambiguous signing key', { cause: error });
  if (error instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError('invalid signature', { cause: error });
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return new InvalidTokenError('malformed token', { cause: error });
  }
  return new ServiceUnavailable('The signing keys of the token issuer cannot be read right now.', { cause: error });
}


export interface AuthenticateOptions {
  realm?: string;
}

/**
 * onRequest hook: answers 401 without a token (no `error`, as RFC 6750 asks) or with a bad one
 * (`error="invalid_token"`), else sets `request.auth`.
 */
export function createAuthenticateHook(verifyToken: TokenVerifier, { realm = 'resource-management' }: AuthenticateOptions = {}) {
  const challenge = `Bearer realm="${realm}"`;
  const invalidToken = (request: FastifyRequest, description: string) => {
    request.log.info({ reason: description }, 'token refused');
    return new Unauthorized(`${challenge}, error="invalid_token", error_description="${description}"`, description);
  };
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization ?? '';
    if (header.length > MAX_AUTHORIZATION_LENGTH) {
      throw invalidToken(request, `the Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters`);
    }
    // any credentials after the scheme: a malformed one is an invalid token, not a missing one
    const token = credentialsOf(header, 'Bearer');
    if (token === undefined) throw new Unauthorized(challenge);
    try {
      request.auth = await verifyToken(token);
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      throw invalidToken(request, error.description);
    }
  };
}
