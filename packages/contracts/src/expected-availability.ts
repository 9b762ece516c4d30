import { Type, type Static } from '@sinclair/typebox';
import { BUSINESS_ID_PATTERN, BusinessId, dateTimeWith, GeneratedId, Problem } from './common.js';
import { AvailabilityFields } from './availability.js';
import { EndLocation, StartLocation } from './shapes.js';

/** The longest range one call expands schedules over: a quarter. */
export const MAX_EXPECTED_RANGE_DAYS = 92;

const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "The IANA time zone the schedules' days and times are read in, like Europe/Amsterdam (a schedule names no zone). Default UTC.",
});

const range = {
  from: dateTimeWith('Shifts that start at or after it.'),
  until: dateTimeWith(`Shifts that start before it; after from, at most ${MAX_EXPECTED_RANGE_DAYS} days later.`),
  time_zone: Type.Optional(TimeZone),
};

/** `GET /employee/{employee_id}/expected-availability`. */
export const ExpectedAvailabilityQuery = Type.Object(range, { additionalProperties: false });
export type ExpectedAvailabilityQuery = Static<typeof ExpectedAvailabilityQuery>;

/** `POST /employee/{employee_id}/availability-generation`. */
export const AvailabilityGenerationBody = Type.Object(
  { ...range, shift_schedule_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only the shifts of this schedule; default every schedule of the employee.' })) },
  { additionalProperties: false },
);
export type AvailabilityGenerationBody = Static<typeof AvailabilityGenerationBody>;

/** Where an expected shift comes from: a shift of a template of a schedule. */
const shiftOrigin = {
  shift_schedule_id: GeneratedId,
  template_index: Type.Integer({ minimum: 1, description: "The template's index (one-based)." }),
  shift_position: Type.Integer({ minimum: 0, description: "The shift's position in the template's shifts (zero-based, as in templates[i].shifts[j])." }),
};

export const ExpectedShift = Type.Object(
  {
    ...shiftOrigin,
    availability: Type.Object(AvailabilityFields.properties, {
      additionalProperties: false,
      description:
        "The availability the shift implies, in UTC, as generation creates it: the shift's own start and end locations, the employee's apply otherwise.",
    }),
    start_location: Type.Object(StartLocation.properties, {
      additionalProperties: false,
      description: "Where the shift starts: the shift's start location, else the employee's start location or home base.",
    }),
    start_location_from: Type.Union([Type.Literal('shift'), Type.Literal('employee')]),
    end_location: Type.Optional(EndLocation),
    covered_by: Type.Optional(Type.String({ format: 'uuid', description: 'An availability of the employee that starts when the shift does and overlaps it.' })),
    overlapping: Type.Optional(
      Type.String({ format: 'uuid', description: 'An availability that overlaps the shift without covering it: generation cannot create this one.' }),
    ),
  },
  { additionalProperties: false },
);
export type ExpectedShift = Static<typeof ExpectedShift>;

export const ExpectedShiftList = Type.Array(ExpectedShift, { description: 'The expected shifts of the range, in start order.' });

const generatedShift = { ...shiftOrigin, earliest_start: dateTimeWith('When the expected shift starts.') };
const ShiftAndAvailability = Type.Object({ ...generatedShift, availability_id: GeneratedId }, { additionalProperties: false });

export const AvailabilityGenerationResult = Type.Object(
  {
    created: Type.Array(ShiftAndAvailability, {
      description: 'The availabilities created, one per expected shift no availability covered.',
    }),
    existing: Type.Array(ShiftAndAvailability, {
      description: 'Expected shifts an availability covered already.',
    }),
    overlapping: Type.Array(ShiftAndAvailability, {
      description: 'Expected shifts not created because they overlap this availability of the employee.',
    }),
    refused: Type.Array(Type.Object({ ...generatedShift, problem: Problem }, { additionalProperties: false }), {
      description: 'Expected shifts not created for another reason (an unknown home base, the tenant at its quota), with the problem a single create got.',
    }),
  },
  { additionalProperties: false },
);
export type AvailabilityGenerationResult = Static<typeof AvailabilityGenerationResult>;

/**
 * The availabilities a generation call created, in its answer's header: the gateway counts them against the
 * tenant's request rate, as it counts an import's lines, and keeps the header from the caller.
 */
export const WRITES_HEADER = 'rm-writes';

/** The generation calls' paths (the tenant's and an employee's), under any base path: each writes many availabilities. */
export const GENERATION_PATH = /\/availability-generation$/;

/** Most availabilities one generation call creates: what it may be charged when its answer never comes. */
export const MAX_GENERATED_PER_CALL = 1_000;

/** Employees one `POST /availability-generation` goes through; `after` takes the next ones. */
export const EMPLOYEES_PER_GENERATION = 20;

/** `POST /availability-generation`: the tenant's employees with a schedule, a few at a time. */
export const TenantAvailabilityGenerationBody = Type.Object(
  {
    ...range,
    after: Type.Optional(Type.String({ pattern: BUSINESS_ID_PATTERN, description: 'The `next_after` of the answer before: the employees after it, by id.' })),
  },
  { additionalProperties: false },
);
export type TenantAvailabilityGenerationBody = Static<typeof TenantAvailabilityGenerationBody>;

export const TenantAvailabilityGenerationResult = Type.Object(
  {
    employees: Type.Array(
      Type.Object(
        {
          employee_id: BusinessId,
          ...AvailabilityGenerationResult.properties,
          problem: Type.Optional(Problem),
        },
        { additionalProperties: false },
      ),
      {
        description:
          `What generation did for each of at most ${EMPLOYEES_PER_GENERATION} employees with a shift schedule, by id (fewer when they have many availabilities to create). ` +
          "An employee with a `problem` got nothing generated (its range holds too many expected shifts: generate it by the employee's own call, in shorter ranges); the run goes on past it.",
      },
    ),
    next_after: Type.Optional(
      Type.String({ pattern: BUSINESS_ID_PATTERN, description: 'There are more employees with a schedule: send the same request again with this as `after`.' }),
    ),
  },
  { additionalProperties: false },
);
export type TenantAvailabilityGenerationResult = Static<typeof TenantAvailabilityGenerationResult>;
