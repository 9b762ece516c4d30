import { Type, type Static } from '@sinclair/typebox';

/** Business ids are chosen by the caller and need no URL encoding (spec: Common types). */
export const BUSINESS_ID_PATTERN = '^[a-zA-Z0-9.~\\-_]{1,512}$';

export const BusinessId = Type.String({
  pattern: BUSINESS_ID_PATTERN,
  minLength: 1,
  maxLength: 512,
  description: 'Chosen by the caller: 1 to 512 characters from a-z, A-Z, 0-9 and . ~ - _ (none needs URL encoding).',
});
export const GeneratedId = Type.String({ format: 'uuid', description: 'A UUID the service generated.' });
const DATE_TIME = 'An RFC 3339 date-time with an offset (Z or ±hh:mm), at most 64 characters, within the years 0000 to 9999 in UTC; returned in UTC.';
export const DateTime = Type.String({ format: 'date-time', maxLength: 64, description: DATE_TIME });
/** A date-time field with a rule of its own, told in its description. */
export const dateTimeWith = (rule: string) => Type.String({ format: 'date-time', maxLength: 64, description: `${DATE_TIME} ${rule}` });
/** ISO 8601 duration in weeks, days, hours, minutes, seconds (DESIGN §8); the `duration` format is ours. */
export const Duration = Type.String({
  format: 'duration',
  maxLength: 64,
  description: 'An ISO 8601 duration in weeks, days, hours, minutes and seconds, like PT8H or P1DT30M (no years or months); at most 64 characters.',
});
export const Version = Type.Integer({
  minimum: 1,
  description: 'The entity version: 1 when created, one more with every write; the ETag is W/"<version>".',
});

export const Violation = Type.Object({
  field: Type.String(),
  message: Type.String(),
});
export type Violation = Static<typeof Violation>;

/** The stored fields of a body that passed its schema, or what breaks the rules its schema cannot say. */
export type FieldsDecision<Fields> = { ok: true; fields: Fields } | { ok: false; violations: Violation[] };

/** application/problem+json (RFC 9457); `violations` only on validation problems. */
export const Problem = Type.Object({
  type: Type.Optional(Type.String()),
  title: Type.String(),
  status: Type.Optional(Type.Integer()),
  detail: Type.String(),
  instance: Type.Optional(Type.String()),
  violations: Type.Optional(Type.Array(Violation)),
});
export type Problem = Static<typeof Problem>;

export const Cursors = Type.Object({
  self: Type.Optional(Type.String({ description: 'Reads this page again; absent when it has no items. At most 2048 characters.' })),
  next: Type.Optional(Type.String({ description: 'Reads the next page; absent on the last. At most 2048 characters.' })),
  prev: Type.Optional(Type.String({ description: 'Reads the previous page; absent on the first. At most 2048 characters.' })),
});
export type Cursors = Static<typeof Cursors>;

/** Page size of cursor-paged lists (field reference: Paging). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** Query of every cursor-paged list (field reference: Paging). */
export const PageQuery = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'A cursor from `cursors` of an earlier page, as it was given: 1 to 2048 characters. Absent: the first page.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
        description: `Page size: 1 to ${MAX_PAGE_SIZE} items, default ${DEFAULT_PAGE_SIZE}, in decimal digits.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

/**
 * Headers of a create (POST): an optional Idempotency-Key (draft-ietf-httpapi-idempotency-key-header), so
 * that an integrator whose create got no answer, or a 503, can send it again without creating twice.
 */
export const CreateHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      format: 'idempotency-key',
      description:
        'Makes a retried create safe: within 24 hours, the same key with the same body creates nothing more and answers ' +
        'with what the first created (201, its Location, `Idempotent-Replayed: true`); with another body, 422. ' +
        '1 to 255 visible ASCII characters, such as a UUID; a key belongs to one list (one parent, one tenant).',
    }),
  ),
});
export type CreateHeaders = Static<typeof CreateHeaders>;

/** `from` and `until` of a list or bulk delete by time (spec: Conventions 5): either may be absent. */
export const TimeRangeQuery = Type.Object(
  {
    from: Type.Optional(dateTimeWith('Matches what ends after it.')),
    until: Type.Optional(dateTimeWith('Matches what starts before it; not before from.')),
  },
  { additionalProperties: false },
);
export type TimeRangeQuery = Static<typeof TimeRangeQuery>;
