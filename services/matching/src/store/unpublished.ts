import { orUnavailable, type Store } from '@rm/store';

/** A tenant whose outputs may have been written without their events published, since when. */
interface UnpublishedRow {
  _id: string;
  since: Date;
}

/**
 * The engine publishes its outputs' events itself, after writing them (the outputs are written
 * with publishedBy 'writer'). Before a write it marks the tenant, and clears the mark once the events
 * are out; a tenant loaded with a mark left (a crash, a failed publish) has every output written since
 * then published again, under the same event ids.
 */
export interface UnpublishedMarks {
  /** When the tenant's oldest unpublished write may have started; undefined when none may be. */
  of(tenant: string): Promise<Date | undefined>;
  /** Marks the tenant as of `since`, unless it is marked earlier already. */
  mark(tenant: string, since: Date): Promise<void>;
  clear(tenant: string): Promise<void>;
}

export function createUnpublishedMarks(store: Store): UnpublishedMarks {
  const marks = store.plainCollection<UnpublishedRow>('unpublished_outputs', []);
  return {
    async of(tenant) {
      return (await orUnavailable(() => marks.findOne({ _id: tenant })))?.since;
    },
    async mark(tenant, since) {
      await orUnavailable(() => marks.updateOne({ _id: tenant }, { $min: { since } }, { upsert: true }));
    },
    async clear(tenant) {
      await orUnavailable(() => marks.deleteOne({ _id: tenant }));
    },
  };
}
