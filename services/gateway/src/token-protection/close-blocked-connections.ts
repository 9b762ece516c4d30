import type { onRequestAsyncHookHandler } from 'fastify';
import type { TokenProtection } from './token-protection.js';

/**
 * onRequest hook of the token endpoint: a blocked IP's connection is closed without an answer, as the
 * spec says ("the client then sees connection errors"). The token endpoint's only: probes, the key set,
 * metrics and the API answer a blocked address as any other (a blocked node address must not fail the
 * kubelet's probes, nor a blocked pod lose the key set).
 */
export function closeBlockedConnections(protection: TokenProtection): onRequestAsyncHookHandler {
  return async (request, reply) => {
    if (!protection.isBlocked(request.ip)) return;
    request.log.info({ ip: request.ip }, 'connection of a blocked IP closed');
    reply.hijack();
    request.raw.socket.destroy();
  };
}
