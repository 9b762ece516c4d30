// @rm/service-kit/resources: the routes every service shares over its stored resources (resources by
// business id, sub-resources of a parent, unavailabilities, the home-base claims of writes that name
// home bases) and their pages. Apart from the foundation (@rm/service-kit), which needs no store.
export {
  assertParentExists,
  idempotencyKeyOf,
  parentScope,
  readSubResource,
  replyCreated,
  serveSubResourceItem,
  spanOverlapping,
  subResourceUrl,
  type SubResourceItemOptions,
  type SubResourceParent,
} from './sub-resources.js';
export {
  createUnavailabilityCollection,
  unavailabilityRoutes,
  type UnavailabilityCollection,
  type UnavailabilityRoutesOptions,
  type UnavailabilitySchemas,
} from './unavailabilities.js';
export { claimCallerOf, createHomeBaseClaims, homeBaseClaimsConfigSpec, type ClaimCaller, type ClaimedWrite, type HomeBaseClaims, type HomeBaseClaimsOptions } from './home-base-references.js';
export { businessResourceRoutes, type BusinessResourceRoutesOptions } from './business-resources.js';
export { pageOfResources, type ListFilter } from './resource-pages.js';
