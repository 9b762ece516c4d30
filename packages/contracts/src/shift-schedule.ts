import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Duration, GeneratedId, Version } from './common.js';
import { entityEvents } from './events.js';
import { EndLocation, ReadOnly, StartLocation } from './shapes.js';

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Most templates (weeks) of a schedule and shifts of a template: a year, and four shifts a day. */
export const MAX_TEMPLATES = 53;
export const MAX_SHIFTS_PER_TEMPLATE = 28;

/** A moment of the week: a day and a time `hh:mm` from 00:00 to 23:59. */
export const WeekMoment = Type.Object(
  {
    time: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'hh:mm from 00:00 to 23:59.' }),
    day: Type.Union(
      WEEKDAYS.map((day) => Type.Literal(day)),
      { description: 'MONDAY to SUNDAY.' },
    ),
  },
  { additionalProperties: false },
);
export type WeekMoment = Static<typeof WeekMoment>;

export const Shift = Type.Object(
  {
    start: Type.Object(
      {
        earliest: WeekMoment,
        window: Type.Optional(Type.String({ ...Duration, description: 'From earliest to latest start; strictly positive.' })),
      },
      { additionalProperties: false },
    ),
    stop: Type.Optional(
      Type.Object(
        {
          latest: Type.Optional(
            Type.Object(WeekMoment.properties, {
              additionalProperties: false,
              description:
                'Within start.earliest + duration.at_least (at_most when absent) and start.earliest + start.window + duration.at_most (spec rule 4).',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    duration: Type.Object(
      {
        at_least: Type.Optional(Type.String({ ...Duration, description: 'Strictly positive, at least start.window.' })),
        at_most: Type.String({ ...Duration, description: 'Strictly positive, at least start.window and at_least, below P7D.' }),
      },
      { additionalProperties: false },
    ),
    mandatory: Type.Optional(Type.Boolean()),
    start_location: Type.Optional(StartLocation),
    end_location: Type.Optional(EndLocation),
    contractual_work_time: Type.Optional(
      Type.String({
        ...Duration,
        description: 'Experimental. Zero or more; once on one shift, on every shift, with acceptable_additional_work_time on every template.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Shift = Static<typeof Shift>;

export const Template = Type.Object(
  {
    index: Type.Integer({ minimum: 1, description: 'One-based; the templates are numbered 1, 2, 3, … without gaps.' }),
    shifts: Type.Array(Shift, { maxItems: MAX_SHIFTS_PER_TEMPLATE, description: `At most ${MAX_SHIFTS_PER_TEMPLATE}; empty for a week off.` }),
    acceptable_additional_work_time: Type.Optional(Type.String({ ...Duration, description: 'Experimental. Strictly positive.' })),
  },
  { additionalProperties: false, description: 'One calendar week, Monday to Sunday.' },
);
export type Template = Static<typeof Template>;

const shiftScheduleFields = {
  name: Type.Optional(Type.String({ maxLength: 200, description: 'At most 200 characters.' })),
  start: Type.Object(
    {
      start_date: Type.String({ format: 'date', description: 'The day the schedule starts, like 2024-05-06.' }),
      start_week: Type.Integer({ minimum: 1, description: 'The index of the template the schedule starts with.' }),
    },
    { additionalProperties: false },
  ),
  templates: Type.Array(Template, { minItems: 1, maxItems: MAX_TEMPLATES, description: `1 to ${MAX_TEMPLATES} weeks.` }),
};

/** Body of `POST /employee/{employee_id}/shift-schedule` and `PUT …/{id}`: read-only fields are ignored. */
export const ShiftScheduleBody = Type.Object(
  { ...shiftScheduleFields, id: Type.Optional(ReadOnly), employee_id: Type.Optional(ReadOnly), version: Type.Optional(ReadOnly) },
  { additionalProperties: false },
);

export const ShiftScheduleFields = Type.Object(shiftScheduleFields, { additionalProperties: false });
export type ShiftScheduleFields = Static<typeof ShiftScheduleFields>;

/** POST and PUT answer without `version` (spec rule 5); it is in the ETag. */
export const WrittenShiftSchedule = Type.Object({ id: GeneratedId, employee_id: BusinessId, ...shiftScheduleFields }, { additionalProperties: false });

/** The list (GET) carries `version`. */
export const ShiftSchedule = Type.Object(
  { id: GeneratedId, employee_id: BusinessId, ...shiftScheduleFields, version: Version },
  { additionalProperties: false },
);
export type ShiftSchedule = Static<typeof ShiftSchedule>;

export const ShiftScheduleList = Type.Array(ShiftSchedule, { description: 'Every shift schedule of the employee.' });

/** `shift-schedule.created`, `.updated` and `.deleted` on `rm.employees.<tenant>.shift-schedule.*`. */
export const SHIFT_SCHEDULE_EVENTS = entityEvents('employees', 'shift-schedule', ShiftSchedule);
