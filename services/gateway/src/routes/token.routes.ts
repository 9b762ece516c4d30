import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TenantLimits } from '@rm/contracts';
import { readTokenRequest, type TokenRequestError } from '../domain/token-request.js';
import { TooManyTokenRequests } from '../errors.js';
import { closeBlockedConnections } from '../token-protection/close-blocked-connections.js';
import type { HashSlots } from '../token-protection/hash-slots.js';
import type { TokenProtection } from '../token-protection/token-protection.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { RefusalDelay } from '../limits/refusal-delay.js';
import type { ClientRegistry } from '../store/client-registry.js';

export const TOKEN_PATH = '/oauth2/token';
/** A token request is a few parameters; anything larger is not one. */
const TOKEN_BODY_LIMIT = 8 * 1024;
const BASIC_CHALLENGE = 'Basic realm="resource-management", charset="UTF-8"';

export interface TokenRoutesOptions {
  registry: ClientRegistry;
  keyRing: KeyRing;
  protection: TokenProtection;
  hashing: HashSlots;
  /** Holds each 429 until its Retry-After. */
  refusals: RefusalDelay;
  /** The limits of a tenant that has none of its own. */
  defaultLimits: TenantLimits;
}

/** `POST /oauth2/token`: OAuth 2.0 client credentials (spec: Authentication), rate-limited per source IP. */
export const tokenRoutes: FastifyPluginAsync<TokenRoutesOptions> = async (app, { registry, keyRing, protection, hashing, refusals, defaultLimits }) => {
  // Any body arrives as text; readTokenRequest judges its media type, as RFC 6749 wants (400, not 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: TOKEN_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.addHook('onRequest', closeBlockedConnections(protection));
  app.addHook('onRequest', async (request) => {
    if (await protection.admit(request.ip)) return;
    await refusals.wait();
    throw new TooManyTokenRequests();
  });

  app.post(TOKEN_PATH, async (request, reply) => {
    noStore(reply);
    const tokenRequest = readTokenRequest({
      contentType: request.headers['content-type'],
      authorization: request.headers.authorization,
      body: typeof request.body === 'string' ? request.body : '',
    });
    if ('problem' in tokenRequest) return sendOAuthError(reply, tokenRequest.problem);

    const { clientId, secret, method } = tokenRequest.credentials;
    if (!(await protection.admitClient(clientId))) {
      await refusals.wait();
      throw new TooManyTokenRequests('client');
    }
    const client = await registry.authenticate(clientId, secret, hashing.run);
    if (client === undefined) {
      // a trusted proxy's own address is every client's behind it: blocking it would shut them all out
      if (request.server.isTrustedProxy(request.ip)) request.log.warn({ ip: request.ip }, 'a failed login from a trusted proxy without X-Forwarded-For is not counted');
      else await protection.recordFailure(request.ip).catch((error: unknown) => request.log.warn({ err: error }, 'a failed login could not be counted'));
      // The same answer for an unknown client, a wrong secret and a disabled client.
      return sendOAuthError(reply, { error: 'invalid_client', description: 'client authentication failed', basic: method === 'client_secret_basic' });
    }
    const { token, expiresIn } = await keyRing.sign({ ...client, limits: { ...defaultLimits, ...client.limits } });
    request.log.info({ clientId: client.clientId, tenant: client.tenant }, 'token issued');
    return reply.code(200).type('application/json').send({
      access_token: token,
      expires_in: expiresIn,
      'not-before-policy': 0,
      refresh_expires_in: 0,
      scope: '',
      token_type: 'Bearer',
    });
  });
};

function noStore(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
}

/** RFC 6749 §5.2: 401 for invalid_client (with a Basic challenge when Basic was tried), else 400. */
function sendOAuthError(reply: FastifyReply, { error, description, basic }: TokenRequestError): FastifyReply {
  const status = error === 'invalid_client' ? 401 : 400;
  if (status === 401 && basic) reply.header('WWW-Authenticate', BASIC_CHALLENGE);
  return reply.code(status).type('application/json').send({ error, error_description: description });
}
