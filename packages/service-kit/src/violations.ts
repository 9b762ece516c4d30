import type { Violation } from '@rm/contracts';

/** The parts of a request fastify validates (`error.validationContext`). */
export type ValidationPart = 'body' | 'querystring' | 'params' | 'headers';

/** The fields of an ajv error that we read (fastify's `FastifySchemaValidationError`). */
export interface ValidationErrorLike {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Name of the whole part, for errors about the part itself (a body that is not an object). */
const PART_NAMES: Record<ValidationPart, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

const FORMAT_HINTS: Record<string, string> = {
  'date-time': 'a date-time with an offset, like 2024-05-01T08:00:00Z',
  date: 'a date like 2024-05-01',
  duration: 'an ISO 8601 duration in weeks, days, hours, minutes or seconds, like PT8H or P1DT30M',
  uuid: 'a UUID',
  'business-id': 'a business id of 1 to 512 characters from a-z, A-Z, 0-9 and .~-_',
  'idempotency-key': '1 to 255 visible ASCII characters, such as a UUID',
};

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/**
 * One violation per ajv error: `field` is a path into the body (`name.first_name`, `skills[2]`),
 * the missing or extra property for `required` and `additionalProperties`, or the parameter or
 * header name for the other parts.
 */
export function violationsFromValidation(errors: readonly ValidationErrorLike[], part: ValidationPart): Violation[] {
  const seen = new Set<string>();
  const violations: Violation[] = [];
  for (const error of errors) {
    // `if` only says that `then` failed; the errors of `then` itself are in the list.
    if (error.keyword === 'if') continue;
    const segments = pointerSegments(error.instancePath);
    const property = error.params.missingProperty ?? error.params.additionalProperty;
    if (typeof property === 'string') segments.push(property);
    const violation = { field: segments.length === 0 ? PART_NAMES[part] : fieldPath(segments), message: messageOf(error) };
    const key = `${violation.field}\u0000${violation.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(violation);
  }
  return violations;
}

/** `/name/first_name` → ['name', 'first_name'], with `~1` and `~0` unescaped (RFC 6901). */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `['skills', '2', 'name']` → `skills[2].name`; keys that are not plain names go in brackets. */
export function fieldPath(segments: readonly string[]): string {
  return segments
    .map((segment, index) => {
      if (/^(0|[1-9]\d*)$/.test(segment)) return `[${segment}]`;
      if (/^[A-Za-z_$][\w$-]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join('');
}

function messageOf({ keyword, params, message }: ValidationErrorLike): string {
  switch (keyword) {
    case 'required':
    case 'dependentRequired':
      return 'is required';
    case 'additionalProperties':
      return 'is not allowed';
    case 'type':
      return `must be ${String(params.type).split(',').map((type) => TYPE_NAMES[type] ?? type).join(' or ')}`;
    case 'format':
      return `must be ${FORMAT_HINTS[String(params.format)] ?? `a valid ${String(params.format)}`}`;
    case 'pattern':
      return `must match pattern ${String(params.pattern)}`;
    case 'minimum':
      return `must be ≥ ${String(params.limit)}`;
    case 'maximum':
      return `must be ≤ ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `must be > ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `must be < ${String(params.limit)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters long`;
    case 'minItems':
      return `must have at least ${String(params.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'minProperties':
      return `must have at least ${String(params.limit)} properties`;
    case 'maxProperties':
      return `must have at most ${String(params.limit)} properties`;
    case 'uniqueItems':
      return `must not contain duplicates (items ${String(params.j)} and ${String(params.i)} are equal)`;
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(params.multipleOf)}`;
    case 'anyOf':
      return 'must match one of the allowed forms';
    case 'oneOf':
      return 'must match exactly one of the allowed forms';
    case 'not':
      return 'must not match the forbidden form';
    default:
      return message ?? 'is invalid';
  }
}
