import type { FastifyRequest } from 'fastify';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { credentialsOf, revocationDigest, type RevocationCheck } from '@rm/service-kit';

/** The bearer token a request was let in with, as what it opens may outlast the request: a feed, an import. */
export interface CallerToken {
  token: string;
  /** When it expires, in ms. */
  expiresAt: number;
  /** Its client, tenant or signing key revoked since it was issued: what the services would now refuse it for. */
  revoked(): boolean;
}

/** The token of a request the authenticate hook let in, read as the verifier read it. */
export function callerToken(request: FastifyRequest, revocations: RevocationCheck): CallerToken {
  const token = credentialsOf(request.headers.authorization ?? '', 'Bearer')!;
  const { exp = 0, iat = 0 } = decodeJwt(token);
  const { kid } = decodeProtectedHeader(token);
  const clientDigest = revocationDigest(request.auth.clientId);
  const tenantDigest = revocationDigest(request.auth.tenant);
  return { token, expiresAt: exp * 1000, revoked: () => revocations.isRevoked({ clientDigest, tenantDigest, issuedAt: iat, kid }) };
}
