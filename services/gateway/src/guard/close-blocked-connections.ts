import type { onRequestAsyncHookHandler } from 'fastify';
import type { TokenGuard } from './token-guard.js';

/**
 * onRequest hook for every route: a blocked IP's connection is closed without an answer, as the
 * spec says ("the client then sees connection errors").
 */
export function closeBlockedConnections(guard: TokenGuard): onRequestAsyncHookHandler {
  return async (request, reply) => {
    if (!guard.isBlocked(request.ip)) return;
    request.log.info({ ip: request.ip }, 'connection of a blocked IP closed');
    reply.hijack();
    request.raw.socket.destroy();
  };
}
