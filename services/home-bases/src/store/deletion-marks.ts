import { orUnavailable, type Store } from '@rm/store';

interface DeletionMark {
  /** `<tenant>|<home base id>`. */
  _id: string;
  at: Date;
}

/**
 * A home base whose delete is under way: claims on it are refused meanwhile. A mark is only believed
 * for MARK_LIFETIME_MS, so that one a crashed delete left behind blocks nothing for good; a delete
 * that held its mark for more than half of that gives up rather than remove (see HomeBaseGuard).
 */
export interface DeletionMarks {
  /** Marks the home base; returns when. */
  mark(tenant: string, homeBase: string): Promise<Date>;
  unmark(tenant: string, homeBase: string): Promise<void>;
  isMarked(tenant: string, homeBase: string): Promise<boolean>;
}

export const MARK_LIFETIME_MS = 60_000;

const markId = (tenant: string, homeBase: string) => `${tenant}|${homeBase}`;

export function createDeletionMarks(store: Store): DeletionMarks {
  const marks = store.plainCollection<DeletionMark>('home_base_deletions', []);
  return {
    async mark(tenant, homeBase) {
      const at = new Date();
      await orUnavailable(() => marks.updateOne({ _id: markId(tenant, homeBase) }, { $set: { at } }, { upsert: true }));
      return at;
    },
    async unmark(tenant, homeBase) {
      await orUnavailable(() => marks.deleteOne({ _id: markId(tenant, homeBase) }));
    },
    async isMarked(tenant, homeBase) {
      const mark = await orUnavailable(() => marks.findOne({ _id: markId(tenant, homeBase) }));
      return mark !== null && Date.now() - mark.at.getTime() < MARK_LIFETIME_MS;
    },
  };
}
