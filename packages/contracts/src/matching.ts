import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Cursors, DateTime, GeneratedId, PageQuery, TimeRangeQuery, Version } from './common.js';
import { entityEvents } from './events.js';
import { Address, Costs } from './shapes.js';

/** A half-open `[start, end)` of date-times. */
const Span = (about: string) => Type.Object({ start: DateTime, end: DateTime }, { additionalProperties: false, description: about });

const SHIFT = 'The shift window: from earliest_start to the calculated latest stop.';
const GUARANTEED = 'The guaranteed working time; absent when it is empty, and then the shift is never matched.';

/** Where a shift starts, as matching compares it with transport resources: one of these, or none of them when nothing says. */
export const MatchingLocation = Type.Object(
  {
    home_base_id: Type.Optional(BusinessId),
    name: Type.Optional(Type.String({ description: 'An ad-hoc start location, matched by name.' })),
    at_last_end: Type.Optional(Type.Literal(true, { description: 'A journey: it goes on with the transport resources below.' })),
    transport_resource_ids: Type.Optional(Type.Array(BusinessId)),
  },
  { additionalProperties: false },
);

/**
 * The consolidated snapshot of one availability (experimental, read-only): what matching uses of the
 * availability, its employee, the employee's unavailabilities and the home base (spec: rule 2). Its id is
 * the availability's.
 */
export const AvailableEmployee = Type.Object(
  {
    id: GeneratedId,
    employee_id: BusinessId,
    shift: Span(SHIFT),
    guaranteed_working_time: Type.Optional(Span(GUARANTEED)),
    location: MatchingLocation,
    mandatory: Type.Boolean(),
    driver_skills: Type.Array(Type.String()),
    skills: Type.Array(Type.String()),
    linked_transport_resource: Type.Optional(BusinessId),
    costs: Type.Optional(Costs),
    unavailabilities: Type.Array(Type.Object({ from: DateTime, to: DateTime }, { additionalProperties: false }), {
      description: "The employee's unavailabilities that overlap the shift window.",
    }),
    address: Type.Optional(Address),
    version: Version,
  },
  { additionalProperties: false },
);
export type AvailableEmployee = Static<typeof AvailableEmployee>;

/**
 * An employee's shift paired with transport resources (experimental, read-only): one per matched
 * availability, whose id it has. `deployment_id` marks one a planning-bound deployment holds: frozen,
 * matching never changes it.
 */
export const ResourceCombination = Type.Object(
  {
    id: GeneratedId,
    employee_id: BusinessId,
    transport_resource_ids: Type.Array(BusinessId, { minItems: 1 }),
    shift: Span(SHIFT),
    guaranteed_working_time: Type.Optional(Span(GUARANTEED)),
    mandatory: Type.Boolean(),
    capabilities: Type.Array(Type.String(), { description: 'What the combination can do (field reference: transport resource).' }),
    linked: Type.Boolean({ description: "Whether it uses the employee's linked transport resource." }),
    deployment_id: Type.Optional(BusinessId),
    version: Version,
  },
  { additionalProperties: false },
);
export type ResourceCombination = Static<typeof ResourceCombination>;

/** `available-employee.*` and `resource-combination.*` on `rm.matching.<tenant>.…`. */
export const AVAILABLE_EMPLOYEE_EVENTS = entityEvents('matching', 'available-employee', AvailableEmployee);
export const RESOURCE_COMBINATION_EVENTS = entityEvents('matching', 'resource-combination', ResourceCombination);

/**
 * Query of both lists: a page, narrowed to one employee, one transport resource (a combination's, a
 * snapshot's linked one) and a range the shift window overlaps.
 */
export const MatchingListQuery = Type.Object(
  {
    ...PageQuery.properties,
    ...TimeRangeQuery.properties,
    employee_id: Type.Optional(BusinessId),
    transport_resource_id: Type.Optional(BusinessId),
  },
  { additionalProperties: false },
);
export type MatchingListQuery = Static<typeof MatchingListQuery>;

export const AvailableEmployeePage = Type.Object({
  available_employees: Type.Array(AvailableEmployee, { description: 'At most `limit` snapshots (1 to 1000, default 100).' }),
  cursors: Cursors,
});

export const ResourceCombinationPage = Type.Object({
  resource_combinations: Type.Array(ResourceCombination, { description: 'At most `limit` combinations (1 to 1000, default 100).' }),
  cursors: Cursors,
});

export const MatchingParams = Type.Object({ id: GeneratedId }, { additionalProperties: false });
export type MatchingParams = Static<typeof MatchingParams>;

/** Why a shift and a transport resource are not combined: the engine's own rules of a pair, and the resource taken. */
export const CANDIDATE_REASONS = [
  'location',
  'inactive',
  'trailer',
  'requirements',
  'required-capabilities',
  'no-guaranteed-time',
  'employee-unavailable',
  'resource-unavailable',
  'taken',
] as const;
export type CandidateReasonCode = (typeof CANDIDATE_REASONS)[number];

const CandidateReason = Type.Object(
  {
    code: Type.Union(
      CANDIDATE_REASONS.map((code) => Type.Literal(code)),
      { description: CANDIDATE_REASONS.join(', ') },
    ),
    message: Type.String(),
    missing: Type.Optional(Type.Array(Type.String(), { description: 'requirements, required-capabilities: what the driver skills lack.' })),
    periods: Type.Optional(
      Type.Array(Type.Object({ from: DateTime, to: DateTime }, { additionalProperties: false }), {
        description: 'employee-unavailable, resource-unavailable: the unavailabilities over the guaranteed working time.',
      }),
    ),
    taken_by: Type.Optional(
      Type.Object(
        { resource_combination_id: GeneratedId, employee_id: BusinessId },
        { additionalProperties: false, description: 'taken: the combination of another shift that overlaps this one.' },
      ),
    ),
  },
  { additionalProperties: false },
);

/** `GET /available-employee/{id}/candidates`: the transport resources a shift could take, and why it does not. */
export const AvailableEmployeeCandidates = Type.Object(
  {
    available_employee_id: GeneratedId,
    employee_id: BusinessId,
    shift: Span(SHIFT),
    guaranteed_working_time: Type.Optional(Span(GUARANTEED)),
    combined_with: Type.Optional(Type.Array(BusinessId, { description: 'The transport resources of its combination, if it has one.' })),
    candidates: Type.Array(
      Type.Object(
        {
          transport_resource_id: BusinessId,
          feasible: Type.Boolean({ description: 'No reason keeps the shift from it, taken included.' }),
          combined: Type.Boolean({ description: 'The shift is combined with it.' }),
          reasons: Type.Array(CandidateReason),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'The transport resources where the shift starts (on a journey, those it continues with): the one it is combined with first, then the feasible ones, then the others, each by id.',
      },
    ),
  },
  { additionalProperties: false },
);
export type AvailableEmployeeCandidates = Static<typeof AvailableEmployeeCandidates>;
