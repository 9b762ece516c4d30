import { Type, type Static } from '@sinclair/typebox';

/** Business ids are chosen by the caller and need no URL encoding (spec: Common types). */
export const BUSINESS_ID_PATTERN = '^[a-zA-Z0-9.~\\-_]{1,512}$';

export const BusinessId = Type.String({ pattern: BUSINESS_ID_PATTERN, minLength: 1, maxLength: 512 });
export const GeneratedId = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time', maxLength: 64 });
/** ISO 8601 duration in weeks, days, hours, minutes, seconds (DESIGN §8); the `duration` format is ours. */
export const Duration = Type.String({ format: 'duration', maxLength: 64 });
export const Version = Type.Integer({ minimum: 1 });

export const Violation = Type.Object({
  field: Type.String(),
  message: Type.String(),
});
export type Violation = Static<typeof Violation>;

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
  self: Type.Optional(Type.String()),
  next: Type.Optional(Type.String()),
  prev: Type.Optional(Type.String()),
});
export type Cursors = Static<typeof Cursors>;

/** Page size of cursor-paged lists (field reference: Paging). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** Query of every cursor-paged list (field reference: Paging). */
export const PageQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;
