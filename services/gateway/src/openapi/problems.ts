import { Problem } from '@rm/contracts';
import type { OpenApiOperation } from '@rm/service-kit';

type Responses = OpenApiOperation['responses'];

const problemSchemaRef = { $ref: '#/components/schemas/Problem' };
const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 }, example: 1 },
};

/** A problem+json response with one example body. */
function problem(description: string, example: Record<string, unknown>, headers?: Record<string, unknown>) {
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    content: { 'application/problem+json': { schema: problemSchemaRef, example } },
  };
}

/**
 * Every error answer of the API, by status, as `components.responses` (their names are what the
 * operations' `$ref`s use). 401 has no body (spec: Errors), only `WWW-Authenticate`.
 */
const ERRORS = {
  400: [
    'BadRequest',
    problem('The request breaks a rule: each broken rule is a violation naming its field.', {
      title: 'Invalid request',
      status: 400,
      detail: 'The request has invalid fields; see violations.',
      violations: [{ field: 'max_duration', message: 'must be an ISO 8601 duration in weeks, days, hours, minutes or seconds, like PT8H or P1DT30M' }],
    }),
  ],
  401: [
    'Unauthorized',
    {
      description:
        'No valid bearer token. With `error="invalid_token"` in `WWW-Authenticate` the token has probably expired: request a new one.',
      headers: {
        'WWW-Authenticate': {
          description: 'The bearer challenge, with the OAuth 2.0 error if the token was refused (RFC 6750).',
          schema: { type: 'string' },
          example: 'Bearer realm="resource-management", error="invalid_token", error_description="the token has expired"',
        },
      },
    },
  ],
  404: ['NotFound', problem('The resource, or the one it belongs to, does not exist.', { title: 'Not Found', status: 404, detail: "employee 'emp-1042' does not exist" })],
  409: [
    'Conflict',
    problem('The write conflicts with the state of another resource, which the problem names.', {
      title: 'Conflict',
      status: 409,
      detail: "deployment 'rit-20261208-0413' would overlap deployment 'rit-20261208-0412' of employee 'emp-1042'",
      conflicting_id: 'rit-20261208-0412',
    }),
  ],
  412: [
    'PreconditionFailed',
    problem('`If-Match` names a version that is not the current one: read the resource again, then retry.', {
      title: 'Precondition Failed',
      status: 412,
      detail: "If-Match does not match the current version of employee 'emp-1042' (W/\"4\")",
    }),
  ],
  413: [
    'ContentTooLarge',
    problem('The body is larger than the gateway accepts.', { title: 'Content Too Large', status: 413, detail: 'The body must not exceed 1048576 bytes.' }),
  ],
  415: [
    'UnsupportedMediaType',
    problem('The body is not `application/json`.', {
      title: 'Unsupported Media Type',
      status: 415,
      detail: 'The request body must be application/json.',
    }),
  ],
  422: [
    'UnprocessableContent',
    problem('The `Idempotency-Key` was used before with another body.', {
      title: 'Unprocessable Entity',
      status: 422,
      detail:
        "Idempotency-Key 'b3f1c2d4-8a9e-4f6b-9c1d-2e3f4a5b6c7d' was first used with another body (to create one availability); send that body again, or use a new key",
    }),
  ],
  429: [
    'TooManyRequests',
    problem(
      "The tenant's request rate is used up for this second.",
      {
        title: 'Too Many Requests',
        status: 429,
        detail: "This tenant's requests are limited to 200 a second, and that many were made in the last second (each write of a call that makes many counts); retry after the time in Retry-After.",
        limit: 200,
      },
      retryAfter,
    ),
  ],
  503: [
    'ServiceUnavailable',
    problem('A part of the system is briefly unavailable: retry after Retry-After. A write that was cut off may have happened (read it to see).', { title: 'Service Unavailable', status: 503, detail: 'The employees service cannot be reached right now; retry later.' }, retryAfter),
  ],
  504: [
    'GatewayTimeout',
    problem('The owner of the resource did not answer in time; the write may or may not have happened.', {
      title: 'Gateway Timeout',
      status: 504,
      detail: 'The employees service did not answer in time; retry later.',
    }),
  ],
} as const satisfies Record<number, readonly [string, unknown]>;

type ErrorStatus = keyof typeof ERRORS;

/** The schemas and responses the operations refer to. */
export const PROBLEM_COMPONENTS = {
  schemas: {
    Problem: {
      ...(JSON.parse(JSON.stringify(Problem)) as object),
      description: 'An RFC 9457 problem. Some add members of their own, like `conflicting_id` on a 409 or `limit` on a 429.',
      additionalProperties: true,
    },
  },
  responses: Object.fromEntries(Object.values(ERRORS)),
};

/** What any operation may answer, whichever service owns it: the gateway's own refusals. */
const EVERY_OPERATION: ErrorStatus[] = [401, 429, 503, 504];
/** What any operation with a body may answer besides. */
const WITH_A_BODY: ErrorStatus[] = [413, 415];

/**
 * The operation's responses with every error answer a `$ref` to its shared response: those its owner
 * declares, and those the gateway adds.
 */
export function withProblemResponses(responses: Responses, hasBody: boolean): Responses {
  const statuses = new Set([...Object.keys(responses).map(Number), ...EVERY_OPERATION, ...(hasBody ? WITH_A_BODY : [])]);
  const described: Responses = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const error = ERRORS[status as ErrorStatus] as readonly [string, unknown] | undefined;
    described[status] = status >= 400 && error !== undefined ? { $ref: `#/components/responses/${error[0]}` } : responses[status]!;
  }
  return described;
}
