import type { Db, Filter } from 'mongodb';
import { entityRefKey, type AppliedVersions, type EntityRef, type EntityVersion } from '@rm/contracts';
import type { BulkWrites } from './bulk-writes.js';
import { inWaves } from './in-waves.js';

export const APPLIED_VERSIONS_COLLECTION = 'applied_versions';

/** Ledger documents read side by side. */
const READS_IN_FLIGHT = 16;

/**
 * One document per consumer and entity, read and raised by its `_id`: a batch costs a statement per
 * entity it applies to either way, and each stays as small as one version whatever the data. (Buckets of
 * many entities took fewer statements for large batches, but grew with the tenant: at 50,000 entities
 * each of 16 held 3,125 versions, which FerretDB read and rewrote whole for every event.)
 */
interface LedgerDocument {
  /** `<durable>|<tenant>|<entity>|<entity id>`. */
  _id: string;
  version: number;
}

/** The applied-versions ledger of one durable consumer, in the consumer's own database. */
export function createAppliedVersions(db: Db, durable: string, bulk: BulkWrites): AppliedVersions {
  const ledger = db.collection<LedgerDocument>(APPLIED_VERSIONS_COLLECTION);
  const ledgerId = (entity: EntityRef) => `${durable}|${entityRefKey(entity)}`;

  return {
    async read(entities) {
      const distinct = [...new Map(entities.map((entity) => [entityRefKey(entity), entity])).values()];
      // one statement per entity, by its _id: FerretDB pushes no `_id: {$in}` down, and read the whole ledger for it
      const found = await inWaves(distinct, READS_IN_FLIGHT, (entity) => ledger.findOne({ _id: ledgerId(entity) } as Filter<LedgerDocument>));
      // in the order asked, whichever read answered first
      const versions = new Map<string, number>();
      for (const [index, entity] of distinct.entries()) {
        const version = found[index]?.version;
        if (version !== undefined) versions.set(entityRefKey(entity), version);
      }
      return versions;
    },
    async record(applied: readonly EntityVersion[]) {
      const highest = new Map<string, number>();
      for (const entity of applied) highest.set(ledgerId(entity), Math.max(highest.get(ledgerId(entity)) ?? 0, entity.version));
      await bulk(
        ledger,
        [...highest].map(([_id, version]) => ({ updateOne: { filter: { _id }, update: { $max: { version } }, upsert: true } })),
      );
    },
    async ping() {
      await db.command({ ping: 1 });
    },
  };
}
