import type { KnownResources } from '../store/known-resources.js';
import type { OwnerCaller, ResourceOwners } from './resource-owners.js';

/**
 * Whether the employees and transport resources a write names exist. This service knows them from
 * their owners' events (KnownResources), which come a moment after the owner's write; so on a miss
 * here (unknown, or deleted) the owner is asked, and a caller may name a resource it has just created
 * (read-your-writes). The owner's live answer is recorded as its event would be, so that a newer event
 * (a delete) still wins and the answer never undoes one.
 */
export interface ResourceChecks {
  /** Those of `ids` that neither this copy nor their owner has: a write's first check. 503 when an owner cannot say. */
  missing(caller: OwnerCaller, tenant: string, entity: string, ids: readonly string[]): Promise<Set<string>>;
  /**
   * Those of `ids` that this copy does not have live, without asking the owner: the check again after
   * a write. A delete's event is recorded here before the resource's dependants are removed, so this
   * copy alone tells whether the write may have come after that removal; and an owner's outage then
   * must not fail a write that is already committed.
   */
  missingHere(tenant: string, entity: string, ids: readonly string[]): Promise<Set<string>>;
}

export function createResourceChecks(known: KnownResources, owners: ResourceOwners): ResourceChecks {
  return {
    async missing(caller, tenant, entity, ids) {
      const unknownHere = [...(await known.missingHere(tenant, entity, ids))];
      const versions = await Promise.all(
        unknownHere.map(async (id) => {
          const version = await owners.versionAt(caller, entity, id);
          if (version !== undefined) await known.recordLive(tenant, entity, id, version);
          return version;
        }),
      );
      // an answer older than a delete recorded meanwhile left that delete in place: the resource is gone
      const answered = unknownHere.filter((_, index) => versions[index] !== undefined);
      const deletedSince = answered.length === 0 ? new Set<string>() : await known.missingHere(tenant, entity, answered);
      return new Set(unknownHere.filter((id, index) => versions[index] === undefined || deletedSince.has(id)));
    },
    missingHere: (tenant, entity, ids) => known.missingHere(tenant, entity, ids),
  };
}
