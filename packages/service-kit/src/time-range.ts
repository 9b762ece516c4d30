import { ValidationProblem } from './errors.js';

/** A range of a list or bulk delete by time: either side may be open (spec: Conventions 5). */
export interface TimeRange {
  from?: Date;
  until?: Date;
}

/** `from` and `until` of a query that passed its schema (date-times); `from` after `until` is a 400 (DESIGN §8). */
export function parseTimeRange(query: { from?: string; until?: string }): TimeRange {
  const range: TimeRange = {
    ...(query.from === undefined ? {} : { from: new Date(query.from) }),
    ...(query.until === undefined ? {} : { until: new Date(query.until) }),
  };
  if (range.from !== undefined && range.until !== undefined && range.from > range.until) {
    throw new ValidationProblem([{ field: 'until', message: 'must not be before from' }]);
  }
  return range;
}
