import { Type, type Static } from '@sinclair/typebox';
import { AVAILABILITY_EVENTS } from './availability.js';
import { BusinessId, Problem } from './common.js';
import { DEPLOYMENT_EVENTS } from './deployment.js';
import { EMPLOYEE_EVENTS } from './employee.js';
import { oneOf } from './shapes.js';
import { SHIFT_SCHEDULE_EVENTS } from './shift-schedule.js';
import { TRANSPORT_RESOURCE_EVENTS } from './transport-resource.js';

/** The entities whose bodies name home bases: the home-bases service follows their events (its reference index). */
export const HOME_BASE_REFERRERS = [EMPLOYEE_EVENTS, AVAILABILITY_EVENTS, SHIFT_SCHEDULE_EVENTS, TRANSPORT_RESOURCE_EVENTS, DEPLOYMENT_EVENTS] as const;

/** A home base a body names, with the JSON path of its id there. */
export interface HomeBaseReference {
  field: string;
  business_id: string;
}

/**
 * Every home base a body or an event's data names: `home_base: { business_id }` objects and the
 * deprecated `home_base_id`, wherever they are (employee, transport resource, availability, the shifts
 * of a schedule). `custom_data` is the caller's own, not a reference.
 */
export function homeBaseReferences(value: unknown, path = ''): HomeBaseReference[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => homeBaseReferences(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]): HomeBaseReference[] => {
    if (path === '' && key === 'custom_data') return [];
    const field = path === '' ? key : `${path}.${key}`;
    if (key === 'home_base_id' && typeof item === 'string') return [{ field, business_id: item }];
    const named = typeof item === 'object' && item !== null && 'business_id' in item && typeof item.business_id === 'string';
    if (key === 'home_base' && named) {
      return [{ field: `${field}.business_id`, business_id: item.business_id }];
    }
    return homeBaseReferences(item, field);
  });
}

/** Who refers to home bases: an entity of another service, by its event entity id (`<employee>/<availability>` for a sub-resource). */
export const Referrer = Type.Object(
  {
    // only these: the claims of another entity would never meet an event that clears them
    entity: oneOf(
      HOME_BASE_REFERRERS.map((events) => events.entity),
      `The entity type, as in its events: ${HOME_BASE_REFERRERS.map((events) => `\`${events.entity}\``).join(', ')}.`,
    ),
    id: Type.String({ minLength: 1, maxLength: 1025, description: 'Its entity id, as in its events.' }),
  },
  { additionalProperties: false },
);
export type Referrer = Static<typeof Referrer>;

/**
 * Body of `POST /internal/home-base-claims` (service to service, never routed by the gateway): a
 * write that is about to name these home bases claims them first, so that none of them can be
 * deleted until the write's event has reached the home-bases service's reference index.
 */
export const HomeBaseClaimBody = Type.Object(
  {
    referrer: Referrer,
    references: Type.Array(
      Type.Object({ field: Type.String({ maxLength: 2048 }), business_id: BusinessId }, { additionalProperties: false }),
      { minItems: 1, maxItems: 10_000 },
    ),
  },
  { additionalProperties: false },
);
export type HomeBaseClaimBody = Static<typeof HomeBaseClaimBody>;

export const HomeBaseClaim = Type.Object({ claim_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export type HomeBaseClaim = Static<typeof HomeBaseClaim>;

export const HomeBaseClaimParams = Type.Object({ claim_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export type HomeBaseClaimParams = Static<typeof HomeBaseClaimParams>;

/** Body of `PUT /internal/home-base-claims/{claim_id}`: the claiming write is done, at this version of the referrer. */
export const HomeBaseClaimSettlement = Type.Object({ version: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
export type HomeBaseClaimSettlement = Static<typeof HomeBaseClaimSettlement>;

/** Most referrers a refused home-base delete lists. */
export const MAX_LISTED_REFERRERS = 100;

/** The 409 of a home-base delete refused because resources still refer to it (DESIGN §8). */
export const HomeBaseInUse = Type.Object({
  ...Problem.properties,
  referrers: Type.Array(
    Type.Object({
      ...Referrer.properties,
      pending: Type.Optional(Type.Literal(true, { description: 'A write naming it is under way or its event has not arrived yet.' })),
    }),
    { maxItems: MAX_LISTED_REFERRERS, description: `What refers to it: at most ${MAX_LISTED_REFERRERS}, by entity and id.` },
  ),
  referrers_total: Type.Integer({ minimum: 1, description: 'How many refer to it in all.' }),
});
export type HomeBaseInUse = Static<typeof HomeBaseInUse>;
