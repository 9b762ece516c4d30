import { isDuplicateKeyError, orUnavailable, setIfNewer, type Store } from '@rm/store';
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

/** Rows per insert statement (FerretDB inserts 400 in the time of 15 single ones), and raises in flight at once. */
const INSERT_CHUNK = 400;
const RAISES_IN_FLIGHT = 16;

/** Every input of every tenant the engine consumed, at its latest version: what a replica rebuilds a tenant from. */
export interface InputStore {
  /**
   * Keeps each input unless a newer or equal version is there: those of entities never recorded
   * (`known` false) are inserted many at a time, the others raised one by one.
   */
  record(tenant: string, inputs: readonly { input: Input; known: boolean }[]): Promise<void>;
  ofTenant(tenant: string): Promise<Input[]>;
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

  async function record(tenant: string, inputs: readonly { input: Input; known: boolean }[]): Promise<void> {
    const fresh = inputs.filter(({ known }) => !known).map(({ input }) => rowOf(tenant, input));
    const known = inputs.filter(({ known }) => known).map(({ input }) => rowOf(tenant, input));
    await orUnavailable(async () => {
      for (let start = 0; start < fresh.length; start += INSERT_CHUNK) {
        const chunk = fresh.slice(start, start + INSERT_CHUNK);
        // one recorded meanwhile (a replica before this one): the chunk is raised row by row instead
        await rows.insertMany(chunk, { ordered: false }).catch((error: unknown) => {
          if (!isDuplicateKeyError(error)) throw error;
          known.push(...chunk);
        });
      }
      for (let start = 0; start < known.length; start += RAISES_IN_FLIGHT) {
        await Promise.all(known.slice(start, start + RAISES_IN_FLIGHT).map(raise));
      }
    });
  }

  async function ofTenant(tenant: string): Promise<Input[]> {
    const found = await orUnavailable(() => rows.find({ tenant }).toArray());
    return found.map(({ entity, entity_id, version, deleted, data }) => ({ entity, id: entity_id, version, deleted, data: JSON.parse(data) as Record<string, unknown> }));
  }

  return { record, ofTenant };
}
