import { randomUUID } from 'node:crypto';
import type { Collection, Filter } from 'mongodb';
import { MAX_LISTED_REFERRERS, type Referrer } from '@rm/contracts';
import { orUnavailable, setIfNewer, type Store } from '@rm/store';

/**
 * One row per referrer that names home bases (from its events), and one per claim: a write under way
 * that will name them. Both keep the home bases they name from being deleted.
 */
interface ReferenceRow {
  _id: string;
  tenant: string;
  entity: string;
  entity_id: string;
  home_bases: string[];
  /** A referrer's row: the version of the referrer whose event it reflects. */
  version?: number;
  /** A claim's row: when it was made. */
  claimed_at?: Date;
  /** A claim's row: the version its write produced, once the writer said so. */
  settled_version?: number;
  /** A claim's row: its entity, an equality that an index serves (see dropStaleClaims). */
  open?: string;
}

/** A referrer of a home base, as a refused delete lists it; `pending` for a claim. */
export type ListedReferrer = Referrer & { pending?: true };

export interface ReferenceIndex {
  /** Records a claim on the home bases; returns its id. */
  claim(tenant: string, referrer: Referrer, homeBases: readonly string[]): Promise<string>;
  /** The claiming write wrote nothing: the claim goes. */
  dropClaim(tenant: string, claimId: string): Promise<void>;
  /** The claiming write produced `version`: the claim stays until the index holds that version. False for an unknown claim. */
  settleClaim(tenant: string, claimId: string, version: number): Promise<boolean>;
  /** Applies a referrer's event: the home bases its `version` names (none for a delete). */
  apply(tenant: string, referrer: Referrer, version: number, homeBases: readonly string[]): Promise<void>;
  /** Drops the claims of these entities made before `before`, settled or not (see CLAIM_DEADLINE_MS); returns how many. */
  dropStaleClaims(entities: readonly string[], before: Date): Promise<number>;
  /** What refers to a home base: the first MAX_LISTED_REFERRERS by entity and id, and how many in all. */
  referrersOf(tenant: string, homeBase: string): Promise<{ referrers: ListedReferrer[]; total: number }>;
}

/**
 * A claim still there (it never settled: its writer crashed, or its write failed in an outage and may
 * have committed; or it was settled with a version whose event never comes) goes once the publishing
 * service's stream has brought an event that happened this long after it: the write has ended by
 * then, and its event, if it committed, has long been published (the relay sweeps every 30 s) and
 * applied, which took the claim away.
 */
export const CLAIM_DEADLINE_MS = 5 * 60_000;

const referrerRowId = (tenant: string, { entity, id }: Referrer) => `referrer|${tenant}|${entity}|${id}`;
const claimRowId = (tenant: string, claimId: string) => `claim|${tenant}|${claimId}`;
const referrerFilter = (tenant: string, { entity, id }: Referrer) => ({ tenant, entity, entity_id: id });

export function createReferenceIndex(store: Store): ReferenceIndex {
  const rows: Collection<ReferenceRow> = store.plainCollection<ReferenceRow>('home_base_references', [
    { key: { tenant: 1, home_bases: 1, entity: 1, entity_id: 1 }, name: 'by_home_base' },
    { key: { tenant: 1, entity: 1, entity_id: 1 }, name: 'by_referrer' },
    { key: { open: 1, claimed_at: 1 }, name: 'open_claims', sparse: true },
  ]);

  async function claim(tenant: string, referrer: Referrer, homeBases: readonly string[]): Promise<string> {
    const claimId = randomUUID();
    await orUnavailable(() =>
      rows.insertOne({
        _id: claimRowId(tenant, claimId),
        tenant,
        entity: referrer.entity,
        entity_id: referrer.id,
        home_bases: [...homeBases],
        claimed_at: new Date(),
        open: referrer.entity,
      }),
    );
    return claimId;
  }

  async function dropClaim(tenant: string, claimId: string): Promise<void> {
    await orUnavailable(() => rows.deleteOne({ _id: claimRowId(tenant, claimId) }));
  }

  async function settleClaim(tenant: string, claimId: string, version: number): Promise<boolean> {
    const _id = claimRowId(tenant, claimId);
    // it stays open: a version whose event never comes (a caller's mistake) must not keep it for ever
    const claimed = await orUnavailable(() => rows.findOneAndUpdate({ _id }, { $set: { settled_version: version } }));
    if (claimed === null) return false;
    // the event may have come first: then nothing else would ever take the claim away
    const referrer = { entity: claimed.entity, id: claimed.entity_id };
    const held = await orUnavailable(() => rows.findOne({ _id: referrerRowId(tenant, referrer) }));
    if (held?.version !== undefined && held.version >= version) await orUnavailable(() => rows.deleteOne({ _id }));
    return true;
  }

  async function apply(tenant: string, referrer: Referrer, version: number, homeBases: readonly string[]): Promise<void> {
    const state = { tenant, entity: referrer.entity, entity_id: referrer.id, home_bases: [...new Set(homeBases)] };
    // One read of the referrer's rows decides what to write: most referrers never name a home base, and
    // then have neither a row nor a claim, and nothing is written.
    const held = await rows.find(referrerFilter(tenant, referrer)).toArray();
    const hasRow = held.some((row) => row._id === referrerRowId(tenant, referrer));
    const hasClaims = held.some((row) => row.claimed_at !== undefined);
    // A referrer with a claim gets a row, so that a settlement with an older version sees this one was applied.
    if (homeBases.length > 0 || hasClaims || hasRow) {
      await setIfNewer(rows, referrerRowId(tenant, referrer), version, state, { create: homeBases.length > 0 || hasClaims });
    }
    // the claims this version settles; after the row's write, so that a settlement racing with it sees
    // one or the other (a claim settled since the read is among them)
    if (hasClaims) await rows.deleteMany({ ...referrerFilter(tenant, referrer), settled_version: { $lte: version } });
  }

  async function dropStaleClaims(entities: readonly string[], before: Date): Promise<number> {
    let dropped = 0;
    // one entity at a time: FerretDB pushes neither `$in` nor `$exists` down, and read every row for them
    for (const entity of entities) dropped += (await rows.deleteMany({ open: entity, claimed_at: { $lt: before } })).deletedCount;
    return dropped;
  }

  async function referrersOf(tenant: string, homeBase: string): Promise<{ referrers: ListedReferrer[]; total: number }> {
    const filter: Filter<ReferenceRow> = { tenant, home_bases: homeBase };
    const listed = await orUnavailable(() => rows.find(filter).sort({ entity: 1, entity_id: 1 }).limit(MAX_LISTED_REFERRERS).toArray());
    // a short list is the whole count; a full one is counted apart, never below what it shows
    const total =
      listed.length < MAX_LISTED_REFERRERS ? listed.length : Math.max(listed.length, await orUnavailable(() => rows.countDocuments(filter)));
    const referrers = listed.map(({ entity, entity_id, claimed_at }): ListedReferrer => ({
      entity,
      id: entity_id,
      ...(claimed_at === undefined ? {} : { pending: true as const }),
    }));
    return { referrers, total };
  }

  return { claim, dropClaim, settleClaim, apply, dropStaleClaims, referrersOf };
}
