import type { Collection, Document, IndexDescription } from 'mongodb';

/**
 * Declares indexes at start. createIndexes is idempotent for an unchanged declaration; a changed one
 * under the same name fails loudly rather than serving queries without the index they expect. One
 * index per call: FerretDB v1.24 closes the connection when one call names two indexes that already
 * exist, which is what every restart of a service on its own database does.
 */
export async function declareIndexes<T extends Document>(
  collection: Collection<T>,
  indexes: IndexDescription[],
): Promise<void> {
  for (const index of indexes) await collection.createIndexes([index]);
}
