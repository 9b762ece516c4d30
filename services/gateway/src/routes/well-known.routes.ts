import type { FastifyPluginAsync } from 'fastify';
import { publicOrigin, REVOCATIONS_PATH } from '@rm/service-kit';
import type { KeyRing } from '../keys/key-ring.js';
import type { Revocations } from '../revocations/revocations.js';
import { TOKEN_PATH } from './token.routes.js';

export const JWKS_PATH = '/.well-known/jwks.json';
export const METADATA_PATH = '/.well-known/oauth-authorization-server';

export interface WellKnownRoutesOptions {
  keyRing: KeyRing;
  revocations: Revocations;
  issuer: string;
}

/**
 * The public keys that verify our tokens, the tokens revoked before they expire (by digest: the list
 * names no one), and RFC 8414 metadata that says where to get a token.
 */
export const wellKnownRoutes: FastifyPluginAsync<WellKnownRoutesOptions> = async (app, { keyRing, revocations, issuer }) => {
  app.get(JWKS_PATH, async (_request, reply) => {
    // Short, so that a verifier meets a new key well before it signs (SIGNING_KEY_PUBLISH_LEAD_MS).
    reply.header('Cache-Control', 'public, max-age=60');
    return keyRing.jwks();
  });

  app.get(REVOCATIONS_PATH, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return revocations.current();
  });

  app.get(METADATA_PATH, async (request, reply) => {
    // RFC 8414: the metadata lives under the issuer, so the issuer's origin is where the endpoints
    // are; the Host header is the caller's to choose, and this answer is cacheable.
    const origin = /^https?:\/\//.test(issuer) ? issuer.replace(/\/+$/, '') : publicOrigin(request);
    reply.header('Cache-Control', 'public, max-age=300');
    return {
      issuer,
      token_endpoint: `${origin}${TOKEN_PATH}`,
      jwks_uri: `${origin}${JWKS_PATH}`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      response_types_supported: [],
      scopes_supported: [],
    };
  });
};
