import type { Db, Filter } from 'mongodb';
import { entityRefKey, type AppliedVersions, type EntityRef, type EntityVersion } from '@rm/contracts';
import type { BulkWrites } from './bulk-writes.js';
import { fnv1a } from './fnv1a.js';
import { inWaves } from './in-waves.js';

export const APPLIED_VERSIONS_COLLECTION = 'applied_versions';

/**
 * Entities of one consumer, tenant and entity type are spread over this many ledger documents: a
 * batch of events costs one read and at most this many updates per (tenant, entity type), each
 * raising many versions at once with `$max`, instead of one upsert per event.
 */
const BUCKETS = 16;

interface LedgerDocument {
  _id: string;
  /** Applied version by entity id (encoded as a field name). */
  v: Record<string, number>;
}

/** The applied-versions ledger of one durable consumer, in the consumer's own database. */
export function createAppliedVersions(db: Db, durable: string, bulk: BulkWrites): AppliedVersions {
  const ledger = db.collection<LedgerDocument>(APPLIED_VERSIONS_COLLECTION);
  const bucketOf = ({ tenant, entity, entityId }: EntityRef) => `${durable}|${tenant}|${entity}|${fnv1a(entityId) % BUCKETS}`;

  return {
    async read(entities) {
      const buckets = [...new Set(entities.map(bucketOf))];
      // one statement per bucket, by its _id: FerretDB pushes no `_id: {$in}` down, and read the whole ledger
      const found = await inWaves(buckets, BUCKETS, (_id) => ledger.findOne({ _id } as Filter<LedgerDocument>));
      const byId = new Map(found.flatMap((document) => (document === null ? [] : [[document._id, document.v]])));
      const versions = new Map<string, number>();
      for (const entity of entities) {
        const version = byId.get(bucketOf(entity))?.[fieldName(entity.entityId)];
        if (version !== undefined) versions.set(entityRefKey(entity), version);
      }
      return versions;
    },
    async record(applied: readonly EntityVersion[]) {
      const raises = new Map<string, Record<string, number>>();
      for (const entity of applied) {
        const bucket = bucketOf(entity);
        const fields = raises.get(bucket) ?? {};
        const field = `v.${fieldName(entity.entityId)}`;
        fields[field] = Math.max(fields[field] ?? 0, entity.version);
        raises.set(bucket, fields);
      }
      await bulk(
        ledger,
        [...raises].map(([_id, fields]) => ({ updateOne: { filter: { _id }, update: { $max: fields }, upsert: true } })),
      );
    },
    async ping() {
      await db.command({ ping: 1 });
    },
  };
}

/** Entity ids may hold `.` (business ids do), which a field name must not; `%` keeps the encoding reversible. */
function fieldName(entityId: string): string {
  return entityId.replaceAll('%', '%25').replaceAll('.', '%2E').replaceAll('$', '%24');
}
