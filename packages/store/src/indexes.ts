import type { Collection, Document, IndexDescription } from 'mongodb';

/**
 * Declares indexes at start. createIndexes is idempotent for an unchanged declaration; a changed one
 * under the same name fails loudly rather than serving queries without the index they expect.
 */
export async function declareIndexes<T extends Document>(
  collection: Collection<T>,
  indexes: IndexDescription[],
): Promise<void> {
  if (indexes.length > 0) await collection.createIndexes(indexes);
}
