import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, DateTime, dateTimeWith, Duration, GeneratedId, Version } from './common.js';
import { entityEvents } from './events.js';
import { EndLocation, ReadOnly, StartLocation } from './shapes.js';

const availabilityFields = {
  /** Overrides the employee's start location or home base for this shift. */
  start_location: Type.Optional(StartLocation),
  /** When omitted the employee makes a round trip. */
  end_location: Type.Optional(EndLocation),
  earliest_start: DateTime,
  latest_start: Type.Optional(DateTime),
  latest_stop: Type.Optional(
    dateTimeWith(
      'Hard stop, between earliest_start + min_duration (max_duration when absent) and (latest_start or earliest_start) + max_duration. When absent the availability ends at (latest_start or earliest_start) + max_duration.',
    ),
  ),
  min_duration: Type.Optional(Duration),
  max_duration: Duration,
  mandatory: Type.Optional(Type.Boolean({ description: 'Default false: whether the resulting combination must be used when planned.' })),
  /** Deprecated in favour of start_location.home_base. */
  home_base_id: Type.Optional(BusinessId),
};

/** Body of `POST /employee/{employee_id}/availability` and `PUT …/{id}`: read-only fields are ignored. */
export const AvailabilityBody = Type.Object(
  { ...availabilityFields, id: Type.Optional(ReadOnly), employee_id: Type.Optional(ReadOnly), version: Type.Optional(ReadOnly) },
  { additionalProperties: false },
);

/** What is stored and published: date-times in UTC. */
export const AvailabilityFields = Type.Object(availabilityFields, { additionalProperties: false });
export type AvailabilityFields = Static<typeof AvailabilityFields>;

export const Availability = Type.Object(
  { id: GeneratedId, employee_id: BusinessId, ...availabilityFields, version: Version },
  { additionalProperties: false },
);
export type Availability = Static<typeof Availability>;

export const AvailabilityList = Type.Array(Availability, { description: 'Every availability of the employee that overlaps the range.' });

/** `availability.created`, `.updated` and `.deleted` on `rm.employees.<tenant>.availability.*`. */
export const AVAILABILITY_EVENTS = entityEvents('employees', 'availability', Availability);
