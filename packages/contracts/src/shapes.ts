import { Type, type Static } from '@sinclair/typebox';
import { BusinessId } from './common.js';

/** Field shapes shared by several resources (field reference: Common shapes). */

const text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, description });

/** Read-only fields of a response may come back in a request (GET, edit, PUT): accepted and ignored. */
export const ReadOnly = Type.Unknown({ description: 'read-only: ignored in requests' });

const STRING_LIST = 'At most 100 different strings of 1 to 200 characters each.';

/** Labels, skills and the like: no duplicates, no empty strings, at most 100 of at most 200 characters; `about` says what they mean. */
export const stringList = (about?: string) =>
  Type.Array(text(200, '1 to 200 characters.'), {
    maxItems: 100,
    uniqueItems: true,
    description: about === undefined ? STRING_LIST : `${about} ${STRING_LIST}`,
  });

export const StringList = stringList();

export const GeoPoint = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90, description: 'Degrees, -90 to 90.' }),
    longitude: Type.Number({ minimum: -180, maximum: 180, description: 'Degrees, -180 to 180.' }),
    resolved: Type.Optional(ReadOnly),
  },
  { additionalProperties: false },
);

const LOCATION_NAME = 'Names the location; co-located entities are matched by it. 1 to 200 characters.';

/** The fields of an address apart from its name (also the deprecated flat start-location fields). */
const addressFields = {
  address_line: Type.Optional(text(500, 'Street, house number, bus and the like: 1 to 500 characters.')),
  city: Type.Optional(text(200, '1 to 200 characters.')),
  zip_code: Type.Optional(text(32, '1 to 32 characters.')),
  /** ISO 3166-1 alpha-2; that it names a real country is a domain rule. */
  country_code: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code of an assigned country: two capital letters, like NL.' })),
  geo_point: Type.Optional(GeoPoint),
};

/** Address information (city, zip code, country) or a geo point: which one is there is a domain rule. */
export const Address = Type.Object(
  { name: Type.Optional(text(200, LOCATION_NAME)), ...addressFields },
  { additionalProperties: false },
);
export type Address = Static<typeof Address>;

/** An address that locates co-located entities by its `name`, which is therefore required. */
export const NamedAddress = Type.Object({ name: text(200, LOCATION_NAME), ...addressFields }, { additionalProperties: false });
export type NamedAddress = Static<typeof NamedAddress>;

export const HomeBaseRef = Type.Object({ business_id: BusinessId }, { additionalProperties: false });
export type HomeBaseRef = Static<typeof HomeBaseRef>;

const money = Type.Number({ minimum: 0, maximum: 1_000_000_000, description: 'From 0 to 1,000,000,000, rounded to 4 decimals.' });

/** Rounded to 4 decimals on the way in (spec: cost rounding precision of 4). */
export const Costs = Type.Object(
  { fixed: Type.Optional(money), per_hour: Type.Optional(money), per_km: Type.Optional(money) },
  { additionalProperties: false },
);
export type Costs = Static<typeof Costs>;

/**
 * Where an availability or a shift starts (spec: Start location): one of `address` (named: matching
 * is by name), `home_base` or `at_last_end`; or the deprecated flat address fields, `name` required
 * with them. That at most one is chosen is a domain rule.
 */
export const StartLocation = Type.Object(
  {
    address: Type.Optional(NamedAddress),
    home_base: Type.Optional(HomeBaseRef),
    at_last_end: Type.Optional(Type.Boolean({ description: 'Start where the preceding deployed combination ended.' })),
    name: Type.Optional(text(200, `Deprecated: use address.name. ${LOCATION_NAME}`)),
    ...addressFields,
  },
  { additionalProperties: false, description: 'At most one of address, home_base, at_last_end, or the deprecated flat address fields.' },
);
export type StartLocation = Static<typeof StartLocation>;

/** Where an availability or a shift ends (spec: End location): at most one of these. */
export const EndLocation = Type.Object(
  {
    address: Type.Optional(Address),
    home_base: Type.Optional(HomeBaseRef),
    at_last_activity: Type.Optional(Type.Boolean({ description: 'The optimization picks the best end location, an order location.' })),
  },
  { additionalProperties: false, description: 'Experimental. At most one of address, home_base and at_last_activity.' },
);
export type EndLocation = Static<typeof EndLocation>;

/** One of `values`: an `enum`, so that a wrong value is one violation listing them all. */
export const oneOf = <Value extends string>(values: readonly Value[], description: string) =>
  Type.Unsafe<Value>({ type: 'string', enum: values, description });
