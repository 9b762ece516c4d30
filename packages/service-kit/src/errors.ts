import { STATUS_CODES } from 'node:http';
import type { Problem, Violation } from '@rm/contracts';
import { violationsFromValidation, type ValidationErrorLike, type ValidationPart } from './violations.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface HttpProblemOptions {
  status: number;
  title: string;
  detail: string;
  code: string;
  violations?: Violation[];
  /** Extension members of the body (RFC 9457 §3.2), such as the id of a conflicting resource. */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/** Members with a meaning of their own (RFC 9457 §3.1, DESIGN §3); an extension never replaces them. */
const STANDARD_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'instance', 'violations']);

/**
 * An error that is an HTTP answer: thrown anywhere in a request, the error handler sends it as
 * `application/problem+json`. Its message is shown to the caller, so write it for them.
 */
export class HttpProblem extends Error {
  readonly statusCode: number;
  readonly title: string;
  readonly detail: string;
  readonly code: string;
  readonly violations: Violation[] | undefined;
  readonly extensions: Record<string, unknown>;
  /** Extra response headers, such as `WWW-Authenticate`. */
  readonly headers: Record<string, string>;

  constructor({ status, title, detail, code, violations, extensions = {}, headers = {}, cause }: HttpProblemOptions) {
    super(detail, { cause });
    this.name = new.target.name;
    this.statusCode = status;
    this.title = title;
    this.detail = detail;
    this.code = code;
    this.violations = violations;
    this.extensions = Object.fromEntries(Object.entries(extensions).filter(([name]) => !STANDARD_MEMBERS.has(name)));
    this.headers = headers;
  }

  toProblem(): Problem & Record<string, unknown> {
    const problem: Problem & Record<string, unknown> = { title: this.title, status: this.statusCode, detail: this.detail, ...this.extensions };
    if (this.violations !== undefined) problem.violations = this.violations;
    return problem;
  }
}

/** 400 with one violation per broken rule (DESIGN §3). */
export class ValidationProblem extends HttpProblem {
  constructor(violations: Violation[], detail = 'The request has invalid fields; see violations.') {
    super({ status: 400, title: 'Invalid request', detail, code: 'RM_INVALID_REQUEST', violations });
  }
}

export class NotFound extends HttpProblem {
  constructor(detail: string) {
    super({ status: 404, title: 'Not Found', detail, code: 'RM_NOT_FOUND' });
  }
}

/** 409; `extensions` name what it conflicts with, like `{ conflicting_id }` (DESIGN §8). */
export class Conflict extends HttpProblem {
  constructor(detail: string, extensions?: Record<string, unknown>) {
    super({ status: 409, title: 'Conflict', detail, code: 'RM_CONFLICT', extensions });
  }
}

export class PreconditionFailed extends HttpProblem {
  constructor(detail: string) {
    super({ status: 412, title: 'Precondition Failed', detail, code: 'RM_PRECONDITION_FAILED' });
  }
}

/** 401; the spec gives it no body fields, only `WWW-Authenticate`. */
export class Unauthorized extends HttpProblem {
  constructor(wwwAuthenticate: string, detail = 'Authentication required') {
    super({ status: 401, title: 'Unauthorized', detail, code: 'RM_UNAUTHORIZED', headers: { 'WWW-Authenticate': wwwAuthenticate } });
  }
}

/** 415; `headers` may say what would have been accepted, like `Accept-Encoding`. */
export class UnsupportedMediaType extends HttpProblem {
  constructor(detail: string, headers: Record<string, string> = {}) {
    super({ status: 415, title: 'Unsupported Media Type', detail, code: 'RM_UNSUPPORTED_MEDIA_TYPE', headers });
  }
}

/** 405 with the methods the resource takes in `Allow` (RFC 9110 §15.5.6). */
export class MethodNotAllowed extends HttpProblem {
  constructor(detail: string, allowed: readonly string[]) {
    super({ status: 405, title: 'Method Not Allowed', detail, code: 'RM_METHOD_NOT_ALLOWED', headers: { Allow: allowed.join(', ') } });
  }
}

/** 503 with `Retry-After: 1`: what is down is usually back within seconds, and clients that honour it back off. */
export class ServiceUnavailable extends HttpProblem {
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super({ status: 503, title: 'Service Unavailable', detail, code: 'RM_UNAVAILABLE', headers: { 'Retry-After': '1' }, cause: options.cause });
  }
}

/** What to send for an error: status, headers and body (absent for 401). */
export interface ProblemResponse {
  status: number;
  headers: Record<string, string>;
  body: (Problem & Record<string, unknown>) | undefined;
  /** A fault of ours, not of the request: log it with its stack. */
  unexpected: boolean;
}

interface ErrorLike {
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
  /** Extension members a store or domain error offers for its problem (RFC 9457 §3.2). */
  extensions?: unknown;
  validation?: ValidationErrorLike[];
  validationContext?: ValidationPart;
}

/**
 * Maps any error to its HTTP answer. Schema violations become a 400 with violations; errors that
 * carry a `statusCode` below 500 (fastify's own, store and domain errors) keep status and message;
 * anything else is our fault and is answered without its message.
 */
export function problemFromError(error: unknown): ProblemResponse {
  const problem = toHttpProblem(error);
  if (problem !== undefined) {
    return {
      status: problem.statusCode,
      headers: { ...problem.headers },
      body: problem.statusCode === 401 ? undefined : problem.toProblem(),
      unexpected: problem.statusCode >= 500,
    };
  }
  const status = statusOf(error);
  const title = STATUS_CODES[status] ?? 'Error';
  return {
    status,
    // a store that is down, like ServiceUnavailable: worth a retry soon
    headers: status === 503 ? { 'Retry-After': '1' } : {},
    body: { title, status, detail: 'The server could not complete the request; it has been logged.' },
    unexpected: true,
  };
}

function toHttpProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof HttpProblem) return error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { validation, validationContext, code, message, extensions } = error as ErrorLike;
  if (Array.isArray(validation) && validationContext !== undefined) {
    return new ValidationProblem(violationsFromValidation(validation, validationContext));
  }
  const status = statusOf(error);
  if (status >= 500) return undefined;
  return new HttpProblem({
    status,
    title: STATUS_CODES[status] ?? 'Error',
    detail: typeof message === 'string' && message !== '' ? message : STATUS_CODES[status] ?? 'Error',
    code: typeof code === 'string' ? code : 'RM_REQUEST_REJECTED',
    extensions: isPlainObject(extensions) ? extensions : {},
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** A valid 4xx/5xx `statusCode` of the error, else 500. */
function statusOf(error: unknown): number {
  const statusCode = typeof error === 'object' && error !== null ? (error as ErrorLike).statusCode : undefined;
  return typeof statusCode === 'number' && Number.isInteger(statusCode) && statusCode >= 400 && statusCode <= 599
    ? statusCode
    : 500;
}
