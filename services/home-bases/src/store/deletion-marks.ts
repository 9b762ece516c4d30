import { randomUUID } from 'node:crypto';
import { orUnavailable, type Store } from '@rm/store';

interface DeletionMark {
  /** `<tenant>|<home base id>|<mark id>`: each delete its own, so that none removes another's. */
  _id: string;
  /** `<tenant>|<home base id>`. */
  home_base: string;
  at: Date;
}

/** A delete's mark on its home base; removed by the delete that made it. */
export interface HeldMark {
  at: Date;
  remove(): Promise<void>;
}

/**
 * Home bases whose delete is under way: claims on them are refused meanwhile. A mark is only believed
 * for MARK_LIFETIME_MS, so that one a crashed delete left behind blocks nothing for good; a delete
 * that held its mark for more than half of that gives up rather than remove (see HomeBaseGuard).
 */
export interface DeletionMarks {
  mark(tenant: string, homeBase: string): Promise<HeldMark>;
  isMarked(tenant: string, homeBase: string): Promise<boolean>;
}

export const MARK_LIFETIME_MS = 60_000;

const homeBaseKey = (tenant: string, homeBase: string) => `${tenant}|${homeBase}`;

export function createDeletionMarks(store: Store): DeletionMarks {
  const marks = store.plainCollection<DeletionMark>('home_base_deletions', [{ key: { home_base: 1, at: 1 }, name: 'by_home_base' }]);
  return {
    async mark(tenant, homeBase) {
      const key = homeBaseKey(tenant, homeBase);
      const mark = { _id: `${key}|${randomUUID()}`, home_base: key, at: new Date() };
      await orUnavailable(() => marks.insertOne(mark));
      return { at: mark.at, remove: async () => void (await orUnavailable(() => marks.deleteOne({ _id: mark._id }))) };
    },
    async isMarked(tenant, homeBase) {
      const believedSince = new Date(Date.now() - MARK_LIFETIME_MS);
      return (await orUnavailable(() => marks.findOne({ home_base: homeBaseKey(tenant, homeBase), at: { $gt: believedSince } }))) !== null;
    },
  };
}
