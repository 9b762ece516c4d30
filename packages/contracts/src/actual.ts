import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Cursors, dateTimeWith, Duration, Version } from './common.js';
import { entityEvents } from './events.js';
import { ReadOnly } from './shapes.js';

const actualFields = {
  start: dateTimeWith('Not in the future: an actual describes a completed shift (spec rule 10).'),
  end: Type.Optional(dateTimeWith('After start, and not in the future.')),
  work_time: Type.String({ ...Duration, description: 'Strictly positive, and at most end − start when end is given.' }),
};

/** Body of `PUT /means/{employee_id}/actual/{actual_id}`: read-only fields are ignored. */
export const ActualBody = Type.Object(
  {
    ...actualFields,
    employee_id: Type.Optional(ReadOnly),
    business_id: Type.Optional(ReadOnly),
    version: Type.Optional(ReadOnly),
    etag: Type.Optional(ReadOnly),
  },
  { additionalProperties: false },
);
export type ActualInput = Static<typeof ActualBody>;

/** What is stored and published: the body without its read-only fields. */
export const ActualFields = Type.Object(actualFields, { additionalProperties: false });
export type ActualFields = Static<typeof ActualFields>;

/** Worked hours of an employee for a completed shift. */
export const Actual = Type.Object(
  { employee_id: BusinessId, business_id: BusinessId, ...actualFields, version: Version },
  { additionalProperties: false },
);
export type Actual = Static<typeof Actual>;

/** `actual.created`, `.updated`, `.deleted` on `rm.deployments.<tenant>.actual.*`; entity id `<employee_id>/<actual_id>`. */
export const ACTUAL_EVENTS = entityEvents('deployments', 'actual', Actual);

/** A listed actual carries its ETag (field reference: Actual). */
export const ListedActual = Type.Object({ ...Actual.properties, etag: Type.String({ description: 'W/"<version>", the ETag of a GET.' }) });

export const ActualPage = Type.Object({
  actuals: Type.Array(ListedActual, { description: 'At most `limit` actuals of the employee (1 to 1000, default 100).' }),
  cursors: Cursors,
});

export const ActualListParams = Type.Object({ employee_id: BusinessId }, { additionalProperties: false });
export type ActualListParams = Static<typeof ActualListParams>;

export const ActualParams = Type.Object({ employee_id: BusinessId, actual_id: BusinessId }, { additionalProperties: false });
export type ActualParams = Static<typeof ActualParams>;
