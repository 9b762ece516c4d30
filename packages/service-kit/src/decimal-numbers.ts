import type { ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

/** What fastify takes from a validator compiler: ajv's function, or one returning `{ value }` or `{ error }`. */
type FastifyValidator = ReturnType<FastifySchemaCompiler<unknown>>;

/** How the text of one numeric property of a query string, path or header must be written. */
interface DecimalRule {
  integer: boolean;
  /** A minus sign only where the schema allows negative values. */
  negative: boolean;
  /** `type: 'array'` of numbers: every item is held to the rule. */
  list: boolean;
}

interface SchemaLike {
  type?: unknown;
  minimum?: unknown;
  exclusiveMinimum?: unknown;
  items?: unknown;
  properties?: Record<string, unknown>;
}

const DECIMAL_TEXT = {
  integer: { signed: /^-?(?:0|[1-9]\d*)$/, unsigned: /^(?:0|[1-9]\d*)$/, message: 'must be an integer in decimal digits, like 100' },
  number: { signed: /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/, unsigned: /^(?:0|[1-9]\d*)(?:\.\d+)?$/, message: 'must be a number in decimal digits, like 2.5' },
} as const;

/**
 * Wraps the validator of a query string, path or headers schema so that its numeric properties
 * take decimal digits only. ajv's coercion reads text as JavaScript's Number() does, so
 * `Infinity`, `0x10`, `1e2`, `+5`, `05` and ` 5` would all pass as integers and reach a query.
 * Only properties whose type is `integer` or `number` alone (or an array of them) are checked: a
 * union with other types may legitimately hold other text.
 */
export function requireDecimalNumbers(validate: ValidateFunction, schema: unknown): FastifyValidator {
  const rules = decimalRules(schema);
  if (rules.size === 0) return validate;
  return function validateWithDecimalNumbers(data: unknown) {
    const malformed = malformedNumbers(data, rules);
    if (validate(data) && malformed.length === 0) return { value: data };
    // ajv's errors about a malformed property describe the coerced value, not what was sent.
    const refused = new Set(malformed.map((error) => error.instancePath.split('/')[1]));
    const others = (validate.errors ?? []).filter((error) => !refused.has(error.instancePath.split('/')[1]));
    return { error: [...malformed, ...others] };
  };
}

function decimalRules(schema: unknown): Map<string, DecimalRule> {
  const rules = new Map<string, DecimalRule>();
  const properties = (schema as SchemaLike | undefined)?.properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const rule = ruleOf(property as SchemaLike);
    if (rule !== undefined) rules.set(name, rule);
  }
  return rules;
}

function ruleOf(schema: SchemaLike | undefined, list = false): DecimalRule | undefined {
  if (schema === undefined) return undefined;
  if (schema.type === 'array' && !list) return ruleOf(schema.items as SchemaLike | undefined, true);
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  if (!types.every((type) => type === 'integer' || type === 'number')) return undefined;
  const allowsNegatives = (bound: unknown) => typeof bound !== 'number' || bound < 0;
  return { integer: !types.includes('number'), negative: allowsNegatives(schema.minimum) && allowsNegatives(schema.exclusiveMinimum), list };
}

function malformedNumbers(data: unknown, rules: Map<string, DecimalRule>): FastifySchemaValidationError[] {
  if (typeof data !== 'object' || data === null) return [];
  const errors: FastifySchemaValidationError[] = [];
  for (const [name, rule] of rules) {
    const value = (data as Record<string, unknown>)[name];
    const pointer = `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const texts = rule.list && Array.isArray(value) ? value.map((item, index) => [`${pointer}/${index}`, item] as const) : [[pointer, value] as const];
    for (const [instancePath, text] of texts) {
      const message = typeof text === 'string' ? problemWith(text, rule) : undefined;
      if (message !== undefined) errors.push({ keyword: 'decimal', instancePath, schemaPath: `#/properties/${name}`, params: {}, message });
    }
  }
  return errors;
}

function problemWith(text: string, { integer, negative }: DecimalRule): string | undefined {
  const form = integer ? DECIMAL_TEXT.integer : DECIMAL_TEXT.number;
  if (!(negative ? form.signed : form.unsigned).test(text)) return form.message;
  // Beyond 2^53 an integer is no longer the one that was written.
  const value = Number(text);
  if (integer && !Number.isSafeInteger(value)) return value > 0 ? `must be ≤ ${Number.MAX_SAFE_INTEGER}` : `must be ≥ ${Number.MIN_SAFE_INTEGER}`;
  return undefined;
}
