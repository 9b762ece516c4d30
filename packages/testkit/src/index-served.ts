import type { Db, Document } from 'mongodb';

/** Rows each probed collection holds: enough that a planner prefers an index that can serve a lookup. */
const PROBE_ROWS = 2_000;

/**
 * The lookups that the indexes of `declared` should serve and do not. For every index of every
 * collection (`_id` included), a collection of the same name in `scratch` gets the same index and
 * PROBE_ROWS rows with a distinct value in each indexed field (the services' own collections may be
 * too small for any planner to choose an index), and a `find` with an equality on each of the index's
 * fields is explained there. Served means the plan reads an index and never the whole table: FerretDB's
 * PostgreSQL plan has an index scan and no `Seq Scan`; MongoDB's has an `IXSCAN` (or `IDHACK`) and no
 * `COLLSCAN`. Each one not served is named `database.collection {filter}: plan`. The probe collections
 * are dropped again.
 */
export async function unservedLookups(declared: Db, scratch: Db): Promise<string[]> {
  const unserved: string[] = [];
  for (const { name } of await declared.listCollections({}, { nameOnly: true }).toArray()) {
    if (name.startsWith('system.')) continue;
    const indexes = await declared.collection(name).listIndexes().toArray();
    const probe = scratch.collection(name);
    try {
      for (const { key, name: indexName, unique = false, sparse = false } of indexes) {
        if (indexName !== '_id_') await probe.createIndexes([{ key, name: indexName, unique, sparse }]);
      }
      const fields = [...new Set(indexes.flatMap((index) => Object.keys(index.key as Document)))].filter((field) => field !== '_id');
      await probe.insertMany(Array.from({ length: PROBE_ROWS }, (_, row) => withFields({ _id: `row-${row}` }, fields, `value-${row}`)));
      for (const index of indexes) {
        const filter = Object.fromEntries(Object.keys(index.key as Document).map((field) => [field, field === '_id' ? 'row-7' : 'value-7']));
        const { queryPlanner } = await probe.find(filter).explain();
        // MongoDB's rejected plans are not what runs
        const nodes = planNodes(queryPlanner?.winningPlan ?? queryPlanner);
        const scans = nodes.some((node) => node === 'Seq Scan' || node === 'COLLSCAN');
        const indexed = nodes.some((node) => /Index Scan|Index Only Scan|IXSCAN|IDHACK/.test(node));
        if (scans || !indexed) unserved.push(`${declared.databaseName}.${name} ${JSON.stringify(filter)}: ${nodes.join(' > ') || 'no plan'}`);
      }
    } finally {
      // the next database may have a collection of the same name
      await probe.drop();
    }
  }
  return unserved;
}

/** The node types of a FerretDB (PostgreSQL `Node Type`) or MongoDB (`stage`) plan, outermost first. */
export function planNodes(plan: unknown): string[] {
  if (Array.isArray(plan)) return plan.flatMap(planNodes);
  if (plan === null || typeof plan !== 'object') return [];
  const node = plan as Record<string, unknown>;
  const own = [node['Node Type'], node.stage].filter((value): value is string => typeof value === 'string');
  return [...own, ...Object.values(node).flatMap(planNodes)];
}

/** `document` with `value` at each dotted path of `fields`. */
function withFields(document: Document, fields: readonly string[], value: string): Document {
  for (const field of fields) {
    const path = field.split('.');
    let parent = document;
    for (const part of path.slice(0, -1)) parent = (parent[part] ??= {}) as Document;
    parent[path.at(-1)!] = value;
  }
  return document;
}
