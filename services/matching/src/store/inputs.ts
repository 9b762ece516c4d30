import { inWaves, isDuplicateKeyError, orUnavailable, setIfNewer, type Store } from '@rm/store';
import type { Input } from '../domain/tenant-matching.js';

/** The latest version of one input of one tenant; `data` as JSON text, stored as it came. */
interface InputRow {
  _id: string;
  tenant: string;
  entity: string;
  entity_id: string;
  version: number;
  deleted: boolean;
  data: string;
}

/** Rows per insert statement: FerretDB inserts up to 100 as one PostgreSQL statement. */
const INSERT_CHUNK = 100;
/**
 * Raises in flight at once. Each is one statement: multi-document inserts running beside the outputs'
 * ones hung FerretDB, whole.
 */
const RAISES_IN_FLIGHT = 16;

/** An input to record, and whether the engine knows a row of its entity to be there already. */
export interface InputToRecord {
  input: Input;
  stored: boolean;
}

/** Every input of every tenant the engine consumed, at its latest version: what a replica rebuilds a tenant from. */
export interface InputStore {
  /**
   * Keeps each input unless a newer or equal version is there: the ones of entities with no row yet are
   * inserted many per statement, the others raised one statement each.
   */
  record(tenant: string, inputs: readonly InputToRecord[]): Promise<void>;
  /** The tenant's inputs; undefined once it has more than `atMost`, without holding the rest. */
  ofTenant(tenant: string, atMost?: number): Promise<Input[] | undefined>;
  /** The data of the tenant's live inputs of one entity (`transport-resource`), as their last event carried it. */
  liveOf(tenant: string, entity: string): Promise<Record<string, unknown>[]>;
}

export function createInputStore(store: Store): InputStore {
  const rows = store.plainCollection<InputRow>('inputs', [{ key: { tenant: 1 }, name: 'by_tenant' }]);

  const rowOf = (tenant: string, { entity, id, version, deleted, data }: Input): InputRow => ({
    _id: `${tenant}|${entity}|${id}`,
    tenant,
    entity,
    entity_id: id,
    version,
    deleted,
    data: JSON.stringify(data),
  });
  const raise = ({ _id, version, ...fields }: InputRow) => setIfNewer(rows, _id, version, fields, { create: true });

  async function insert(fresh: readonly InputRow[]): Promise<void> {
    for (let start = 0; start < fresh.length; start += INSERT_CHUNK) {
      const chunk = fresh.slice(start, start + INSERT_CHUNK);
      try {
        await rows.insertMany(chunk, { ordered: false });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        // a row the engine did not know of (another replica's, while a partition changed hands)
        await inWaves(chunk, RAISES_IN_FLIGHT, raise);
      }
    }
  }

  async function record(tenant: string, inputs: readonly InputToRecord[]): Promise<void> {
    const fresh = inputs.filter(({ stored }) => !stored).map(({ input }) => rowOf(tenant, input));
    const known = inputs.filter(({ stored }) => stored).map(({ input }) => rowOf(tenant, input));
    await orUnavailable(async () => {
      await insert(fresh);
      await inWaves(known, RAISES_IN_FLIGHT, raise);
    });
  }

  async function ofTenant(tenant: string, atMost = Infinity): Promise<Input[] | undefined> {
    return orUnavailable(async () => {
      const found: Input[] = [];
      for await (const { entity, entity_id, version, deleted, data } of rows.find({ tenant })) {
        if (found.length === atMost) return undefined;
        found.push({ entity, id: entity_id, version, deleted, data: JSON.parse(data) as Record<string, unknown> });
      }
      return found;
    });
  }

  async function liveOf(tenant: string, entity: string): Promise<Record<string, unknown>[]> {
    // equalities both, which FerretDB pushes down; the tenant's index serves them
    const found = await orUnavailable(() => rows.find({ tenant, entity, deleted: false }).toArray());
    return found.map(({ data }) => JSON.parse(data) as Record<string, unknown>);
  }

  return { record, ofTenant, liveOf };
}
