import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Cursors, Version } from './common.js';
import { entityEvents } from './events.js';
import { Address, ReadOnly } from './shapes.js';

const homeBaseFields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: '1 to 200 characters.' }),
  /** Address information or a geo point: which one is there is a domain rule. */
  address: Address,
  plan_group: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The plan group it belongs to: 1 to 200 characters.' })),
};

/** Body of `PUT /home-base/{home_base_id}`. */
export const HomeBaseBody = Type.Object(
  { ...homeBaseFields, business_id: Type.Optional(ReadOnly), version: Type.Optional(ReadOnly) },
  { additionalProperties: false },
);
export type HomeBaseInput = Static<typeof HomeBaseBody>;

/** What is stored and published: the body without its read-only fields. */
export const HomeBaseFields = Type.Object(homeBaseFields, { additionalProperties: false });
export type HomeBaseFields = Static<typeof HomeBaseFields>;

export const HomeBase = Type.Object({ business_id: BusinessId, ...homeBaseFields, version: Version }, { additionalProperties: false });
export type HomeBase = Static<typeof HomeBase>;

/**
 * `home-base.created`, `.updated` and `.deleted` on `rm.home-bases.<tenant>.home-base.*`: data is the
 * home base as GET shows it, its address included, so that consumers holding a copy apply a change.
 */
export const HOME_BASE_EVENTS = entityEvents('home-bases', 'home-base', HomeBase);

export const HomeBasePage = Type.Object({
  home_bases: Type.Array(HomeBase, { description: 'At most `limit` home bases (1 to 1000, default 100).' }),
  cursors: Cursors,
});

export const HomeBaseParams = Type.Object({ home_base_id: BusinessId }, { additionalProperties: false });
export type HomeBaseParams = Static<typeof HomeBaseParams>;
