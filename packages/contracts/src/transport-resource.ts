import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Cursors, GeneratedId, Version } from './common.js';
import { entityEvents } from './events.js';
import { Costs, HomeBaseRef, NamedAddress, oneOf, ReadOnly, StringList, stringList } from './shapes.js';
import { unavailabilitySchemas } from './unavailability.js';

const CAPACITY_TYPES = ['volume', 'weight', 'loading_meters', 'pallets'] as const;
/** `custom_data` serialized as JSON takes at most this many bytes (field reference). */
export const CUSTOM_DATA_MAX_BYTES = 16 * 1024;

const text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, description });
const capacityType = (description: string) => oneOf(CAPACITY_TYPES, description);

export const Capacity = Type.Object(
  {
    type: Type.Optional(capacityType('volume (the default), weight, loading_meters or pallets; each at most once.')),
    value: Type.Number({ minimum: 0, maximum: 1_000_000_000, description: 'From 0 to 1,000,000,000.' }),
  },
  { additionalProperties: false },
);
export type Capacity = Static<typeof Capacity>;

/** A capacity as stored and shown: its type filled in. */
const StoredCapacity = Type.Object(
  { type: capacityType('volume, weight, loading_meters or pallets.'), value: Capacity.properties.value },
  { additionalProperties: false },
);

const skillList = (about: string) => Type.Optional(stringList(about));

const transportResourceFields = {
  type: oneOf(['TRUCK', 'TRACTOR', 'TRAILER'], 'TRUCK, TRACTOR or TRAILER. A TRAILER is never matched to an employee on its own.'),
  license_plate: Type.Optional(text(32, '1 to 32 characters.')),
  reference: Type.Optional(text(200, "The caller's own reference: 1 to 200 characters.")),
  labels: Type.Optional(StringList),
  requirements: skillList("What an employee must have in driver_skills to drive it."),
  required_capabilities: skillList("Also required of the employee's driver_skills, and capabilities of the combination."),
  capabilities: skillList('Capabilities it gives a combination.'),
  skilled_capabilities: skillList('Given to a combination only when the employee has the same driver_skills.'),
  cant_do: skillList('Capabilities removed from the combination.'),
  /** Each type at most once: a domain rule. */
  capacities: Type.Optional(Type.Array(Capacity, { maxItems: CAPACITY_TYPES.length, description: 'Each capacity type at most once.' })),
  /** Exactly one of start_location and home_base (a domain rule). */
  start_location: Type.Optional(NamedAddress),
  home_base: Type.Optional(HomeBaseRef),
  inactive: Type.Optional(Type.Boolean({ description: 'An inactive resource is never matched. Default false.' })),
  costs: Type.Optional(Costs),
  route_settings: Type.Optional(
    Type.Object(
      { direct_trips: Type.Optional(Type.Boolean({ description: 'Experimental: plan direct trips only.' })) },
      { additionalProperties: false },
    ),
  ),
  custom_data: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'Any JSON object of at most 16 KiB as JSON (16,384 bytes of UTF-8); stored and returned exactly as given, whatever its keys.',
      },
    ),
  ),
};

/** Body of `PUT /transport-resource/{transport_resource_id}`. */
export const TransportResourceBody = Type.Object(
  { ...transportResourceFields, business_id: Type.Optional(ReadOnly), version: Type.Optional(ReadOnly) },
  { additionalProperties: false },
);
export type TransportResourceInput = Static<typeof TransportResourceBody>;

const storedFields = {
  ...transportResourceFields,
  capacities: Type.Optional(Type.Array(StoredCapacity, { maxItems: CAPACITY_TYPES.length })),
  inactive: Type.Boolean({ description: 'An inactive resource is never matched.' }),
};

/** What is stored and published: read-only fields dropped, capacity types and `inactive` filled in, costs rounded. */
export const TransportResourceFields = Type.Object(storedFields, { additionalProperties: false });
export type TransportResourceFields = Static<typeof TransportResourceFields>;

export const TransportResource = Type.Object({ business_id: BusinessId, ...storedFields, version: Version }, { additionalProperties: false });
export type TransportResource = Static<typeof TransportResource>;

/** `transport-resource.created`, `.updated` and `.deleted` on `rm.transport-resources.<tenant>.transport-resource.*`. */
export const TRANSPORT_RESOURCE_EVENTS = entityEvents('transport-resources', 'transport-resource', TransportResource);

export const TransportResourcePage = Type.Object({
  transport_resources: Type.Array(TransportResource, { description: 'At most `limit` transport resources (1 to 1000, default 100).' }),
  cursors: Cursors,
});

export const TransportResourceParams = Type.Object({ transport_resource_id: BusinessId }, { additionalProperties: false });
export type TransportResourceParams = Static<typeof TransportResourceParams>;

/** `/transport-resource/{transport_resource_id}/unavailability/{unavailability_id}`: generated, or chosen by the caller. */
export const TransportResourceUnavailabilityParams = Type.Object(
  { transport_resource_id: BusinessId, unavailability_id: GeneratedId },
  { additionalProperties: false },
);

/** `/transport-resource/{transport_resource_id}/unavailability…`; events on `rm.transport-resources.<tenant>.transport-resource-unavailability.*`. */
export const TRANSPORT_RESOURCE_UNAVAILABILITY = unavailabilitySchemas(
  'transport-resources',
  'transport-resource-unavailability',
  'transport_resource_id',
);
