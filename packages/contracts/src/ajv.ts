import { Ajv, type FormatDefinition } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { BUSINESS_ID_PATTERN } from './common.js';
import { parseDuration } from './duration.js';

export interface AjvOptions {
  /** `false` for bodies (a JSON `"1"` stays a string); `true` or `'array'` for query, params, headers. */
  coerceTypes: boolean | 'array';
}

const rfc3339 = fullFormats['date-time'] as FormatDefinition<string> & { validate: (text: string) => boolean };
/** The instants an RFC 3339 date-time can state in UTC, which is how we store and return them. */
const EARLIEST_UTC = Date.parse('0000-01-01T00:00:00Z');
const LATEST_UTC = Date.parse('9999-12-31T23:59:59.999Z');

/** RFC 3339 with a required offset that JavaScript's Date reads too, at an instant that has a UTC form. */
function isDateTime(text: string): boolean {
  if (!rfc3339.validate(text)) return false;
  const instant = Date.parse(text);
  return instant >= EARLIEST_UTC && instant <= LATEST_UTC;
}
const businessId = new RegExp(BUSINESS_ID_PATTERN);

/** Our formats; `format` names in contracts resolve to these. */
const FORMATS: Record<string, FormatDefinition<string>> = {
  // Date refuses leap seconds and `+01`; 9999-12-31T23:00:00-01:00 has no UTC form in RFC 3339.
  'date-time': { type: 'string', validate: isDateTime },
  date: fullFormats.date as FormatDefinition<string>,
  // ajv-formats' uuid also accepts a `urn:uuid:` prefix, which no id of ours carries.
  uuid: { type: 'string', validate: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i },
  // ajv-formats' duration refuses PT0.5S and P1W2D and accepts P1M (PRACTICES).
  duration: { type: 'string', validate: (text) => parseDuration(text) !== undefined },
  'business-id': { type: 'string', validate: businessId },
  'idempotency-key': { type: 'string', validate: /^[\x21-\x7E]{1,255}$/ },
};

/**
 * An ajv instance configured the same way everywhere: every error collected, no silent removal of
 * unknown properties, defaults applied, unknown keywords refused.
 */
export function createAjv({ coerceTypes }: AjvOptions): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    strict: true,
    // Unions (`anyOf` of types, nullable fields) are normal in our schemas.
    strictTypes: false,
    allowUnionTypes: true,
    strictTuples: false,
    strictRequired: false,
  });
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
  return ajv;
}
