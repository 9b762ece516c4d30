import type { EventEnvelope } from '@rm/contracts';
import { orUnavailable, setIfNewer, type Store } from '@rm/store';

/** A resource another service owns, as its events (or its owner, asked) last said. */
interface KnownResource {
  /** `<tenant>|<entity>|<id>`. */
  _id: string;
  version: number;
  deleted: boolean;
}

/**
 * What this service knows of the employees and transport resources that other services own, from
 * their events: whether each is there. The writes that name them check it (through ResourceChecks,
 * which asks the owner on a miss); a delete's event is recorded before what depends on the resource
 * is removed (see events.ts), so that a write that checked before the delete and committed after the
 * removal sees the delete when it checks again.
 */
export interface KnownResources {
  /** Records an event of a resource of `entity`. */
  apply(event: EventEnvelope, entity: string): Promise<void>;
  /** Records that the owner has the resource at `version`, as its event would: a newer event (a delete) still wins. */
  recordLive(tenant: string, entity: string, id: string, version: number): Promise<void>;
  /** Those of `ids` that are not known here, or deleted. */
  missingHere(tenant: string, entity: string, ids: readonly string[]): Promise<Set<string>>;
}

const knownId = (tenant: string, entity: string, id: string) => `${tenant}|${entity}|${id}`;

export function createKnownResources(store: Store): KnownResources {
  const known = store.plainCollection<KnownResource>('known_resources', []);
  const insert = store.groupedInsert(known);

  return {
    async apply(event, entity) {
      const _id = knownId(event.tenant, entity, event.entity_id);
      const deleted = event.type.endsWith('.deleted');
      // A first version goes in with others (a bulk load's resources, many per statement), where an
      // upsert reads before it writes; found there already, it holds this version or a newer one.
      if (event.version === 1 && !deleted) {
        await insert({ _id, version: 1, deleted: false });
        return;
      }
      await setIfNewer(known, _id, event.version, { deleted }, { create: true });
    },
    async recordLive(tenant, entity, id, version) {
      await orUnavailable(() => setIfNewer(known, knownId(tenant, entity, id), version, { deleted: false }, { create: true }));
    },
    async missingHere(tenant, entity, ids) {
      // one findOne each, side by side: FerretDB answers an `$in` over `_id` by scanning the collection
      const found = await Promise.all(ids.map((id) => orUnavailable(() => known.findOne({ _id: knownId(tenant, entity, id) }))));
      return new Set(ids.filter((_, index) => found[index] === null || found[index]!.deleted));
    },
  };
}
