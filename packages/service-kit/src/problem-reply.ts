import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Problem } from '@rm/contracts';
import { PROBLEM_CONTENT_TYPE, problemFromError } from './errors.js';
import { problemFromFrameworkError, type RequestLimits } from './framework-errors.js';

export type ProblemReplier = (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * The one way every error leaves the service: fastify's error handler and its `frameworkErrors`
 * both call it. Logs our own faults with their stack and the caller's at info.
 */
export function createProblemReplier(limits: RequestLimits): ProblemReplier {
  return function replyWithProblem(error, request, reply) {
    const { status, headers, body, unexpected } = problemFromError(problemFromFrameworkError(error, limits) ?? error);
    if (unexpected) request.log.error({ err: error }, 'request failed');
    else request.log.info({ statusCode: status, code: (error as { code?: unknown }).code }, 'request rejected');
    // Framework errors raised while routing skip the onRequest hook that sets it.
    reply.code(status).headers(headers).header('X-Request-Id', request.id);
    return body === undefined ? reply.send() : sendProblem(reply, body);
  };
}

export function sendProblem(reply: FastifyReply, body: Problem & Record<string, unknown>): FastifyReply {
  // Sent as text so that a route's response schema never reshapes an error.
  return reply.header('Content-Type', PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}
