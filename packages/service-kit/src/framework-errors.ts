import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { HttpProblem, NotFound, PROBLEM_CONTENT_TYPE, ServiceUnavailable, UnsupportedMediaType, ValidationProblem } from './errors.js';

/** The limits that some framework refusals name. */
export interface RequestLimits {
  bodyLimit: number;
  maxParamLength: number;
}

/**
 * Our answer to each error fastify raises itself, before or around a handler. Its own messages
 * echo the path or name fastify internals; these say what the caller has to change.
 */
const FASTIFY_PROBLEMS: Record<string, (limits: RequestLimits) => HttpProblem> = {
  FST_ERR_BAD_URL: () =>
    new ValidationProblem([{ field: 'path', message: 'must be percent-encoded correctly: every % starts an escape like %2F' }], 'The URL path is not valid.'),
  FST_ERR_MAX_PARAM_LENGTH: ({ maxParamLength }) =>
    new HttpProblem({ status: 414, title: 'URI Too Long', detail: `A path parameter is longer than ${maxParamLength} characters.`, code: 'RM_PATH_PARAMETER_TOO_LONG' }),
  FST_ERR_CTP_BODY_TOO_LARGE: ({ bodyLimit }) =>
    new HttpProblem({ status: 413, title: 'Payload Too Large', detail: `The request body is larger than ${bodyLimit} bytes.`, code: 'RM_BODY_TOO_LARGE' }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new UnsupportedMediaType('The request body must be application/json.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ValidationProblem([{ field: 'Content-Length', message: 'must be the size of the body in bytes' }]),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ValidationProblem([{ field: 'body', message: 'must not be empty' }]),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new ValidationProblem([{ field: 'body', message: 'is not valid JSON' }]),
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: () => new ValidationProblem([{ field: 'Content-Type', message: 'is required' }]),
  FST_ERR_ROUTE_MISSING_CONTENT: () => new ValidationProblem([{ field: 'body', message: 'is required' }]),
  FST_ERR_NOT_FOUND: () => new NotFound('There is no such resource.'),
};

/** The problem for an error fastify raised, or undefined for any other error. */
export function problemFromFrameworkError(error: unknown, limits: RequestLimits): HttpProblem | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && Object.hasOwn(FASTIFY_PROBLEMS, code) ? FASTIFY_PROBLEMS[code]?.(limits) : undefined;
}

/** What Node's HTTP parser refuses before fastify sees a request, by the error's code. */
const CONNECTION_PROBLEMS: Record<string, { status: number; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'The request did not arrive in time.' },
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'The request line and headers are larger than the server accepts.' },
};
const MALFORMED_REQUEST = { status: 400, detail: 'The request is not valid HTTP/1.1.' };

/**
 * fastify's `clientErrorHandler`: answers what Node's HTTP parser refuses (malformed requests,
 * oversized headers, request timeouts) as problem+json, then closes the connection.
 */
export function createClientErrorHandler(logger: FastifyBaseLogger): (error: Error & { code?: string }, socket: Socket) => void {
  return function answerClientError(error, socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, detail } = (error.code !== undefined && CONNECTION_PROBLEMS[error.code]) || MALFORMED_REQUEST;
    logger.debug({ code: error.code, statusCode: status }, 'connection refused');
    if (socket.writable && !responseStarted(socket)) socket.write(rawProblemResponse(status, detail));
    socket.destroy(error);
  };
}

/** Node's own handler checks the same: a second status line inside a response would corrupt it. */
function responseStarted(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
}

function rawProblemResponse(status: number, detail: string): string {
  const title = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({ title, status, detail });
  return [
    `HTTP/1.1 ${status} ${title}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Refusals that fastify and Node would otherwise answer in their own format, as hooks that throw
 * problems: requests without Host (Node sends a bare 400, and a Location needs the host) or with one
 * that is not a host and port (a Location would be broken or point elsewhere), and
 * requests arriving while the server closes (fastify's `return503OnClosing` body).
 */
export function refuseBadHostAndClosingRequests(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request) => {
    if (closing) throw new ServiceUnavailable('The service is shutting down.');
    if (!request.headers.host) throw new ValidationProblem([{ field: 'Host', message: 'is required' }]);
    // request.host: a trusted proxy's X-Forwarded-Host, else Host; Location is built from it
    if (!isHostAndPort(request.host)) {
      throw new ValidationProblem([{ field: 'Host', message: 'must be a host name or IP address, with an optional port' }]);
    }
  });
}

/** A DNS name (underscores allowed, as container names have them), an IPv4 address or a bracketed IPv6 one. */
const HOST_AND_PORT = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

/** A DNS name has at most 253 characters; with brackets, a colon and a port, a host is shorter than this. */
const MAX_HOST_LENGTH = 300;

function isHostAndPort(host: string): boolean {
  // the pattern backtracks within each label: a long header costs it more than its length
  if (host.length > MAX_HOST_LENGTH) return false;
  const matched = HOST_AND_PORT.exec(host);
  const port = matched?.[1];
  return matched !== null && (port === undefined || (Number(port) >= 1 && Number(port) <= 65_535));
}
