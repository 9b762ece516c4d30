import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import { isDuplicateKeyError } from './errors.js';

/**
 * Sets `fields` and `version` on the document `_id` unless it already holds that version or a newer
 * one, so that a consumer never lays an older state over a newer one, whatever order events come in;
 * creates the document when it is missing and `create` is set. A newer version makes the upsert try to
 * insert a second document under the same id, which the unique `_id` refuses: that is the "already
 * newer" answer, not an error.
 */
export async function setIfNewer<T extends Document & { _id: string; version?: number }>(
  collection: Collection<T>,
  _id: string,
  version: number,
  fields: Partial<T>,
  { create }: { create: boolean },
): Promise<void> {
  try {
    await collection.updateOne({ _id, version: { $lt: version } } as Filter<T>, { $set: { ...fields, version } } as UpdateFilter<T>, {
      upsert: create,
    });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}
