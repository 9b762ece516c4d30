import type { FastifyInstance } from 'fastify';
import type { TokenGuard } from '../guard/token-guard.js';

/**
 * onRequest hook: a blocked IP's connection is closed without an answer, as the spec says
 * ("the client then sees connection errors").
 */
export function closeBlockedConnections(app: FastifyInstance, guard: TokenGuard): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!guard.isBlocked(request.ip)) return;
    request.log.info({ ip: request.ip }, 'connection of a blocked IP closed');
    reply.hijack();
    request.raw.socket.destroy();
  });
}
