import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, DateTime, dateTimeWith, GeneratedId, Version, type FieldsDecision } from './common.js';
import { toUtcDateTime } from './date-time.js';
import { entityEvents } from './events.js';
import { ReadOnly } from './shapes.js';

const unavailabilityFields = {
  from: DateTime,
  to: dateTimeWith('Strictly after from.'),
  description: Type.Optional(Type.String({ maxLength: 1000, description: 'At most 1000 characters.' })),
};

/** What is stored and published of an employee's or a transport resource's unavailability. */
export const UnavailabilityFields = Type.Object(unavailabilityFields, { additionalProperties: false });
export type UnavailabilityFields = Static<typeof UnavailabilityFields>;

/**
 * The schemas of one parent's unavailabilities (spec: Employee unavailabilities, Transport resource
 * unavailabilities): they differ only in the field naming the parent (`parentField`) and in their events.
 */
export function unavailabilitySchemas<ParentField extends string>(service: string, entity: string, parentField: ParentField) {
  const parentId = { [parentField]: BusinessId } as { [Field in ParentField]: typeof BusinessId };
  const readOnly = Type.Optional(ReadOnly);
  const readOnlyParent = { [parentField]: readOnly } as { [Field in ParentField]: typeof readOnly };
  const Resource = Type.Object({ id: GeneratedId, ...parentId, ...unavailabilityFields, version: Version }, { additionalProperties: false });
  return {
    /** Body of POST and PUT: the fields, and the read-only ones a GET brings back. */
    Body: Type.Object(
      { ...unavailabilityFields, id: readOnly, ...readOnlyParent, version: readOnly },
      { additionalProperties: false },
    ),
    Resource,
    List: Type.Array(Resource, { description: 'Every unavailability that overlaps the range, with its version.' }),
    /** `<entity>.created`, `.updated`, `.deleted`; entity id `<parent id>/<id>`. */
    events: entityEvents(service, entity, Resource),
  };
}

/** A request body that passed its schema: the fields, plus read-only ones sent back from a GET. */
export type UnavailabilityInput = UnavailabilityFields & Record<string, unknown>;

/** `to` strictly after `from` (spec); the stored form keeps only the fields, with UTC date-times. */
export function decideUnavailability({ from, to, description }: UnavailabilityInput): FieldsDecision<UnavailabilityFields> {
  if (!(Date.parse(to) > Date.parse(from))) return { ok: false, violations: [{ field: 'to', message: 'must be after from' }] };
  return { ok: true, fields: { from: toUtcDateTime(from), to: toUtcDateTime(to), ...(description === undefined ? {} : { description }) } };
}
