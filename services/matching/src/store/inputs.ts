import { inWaves, orUnavailable, setIfNewer, type Store } from '@rm/store';
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

/**
 * Raises in flight at once. Each is one statement: multi-document inserts running beside the outputs'
 * ones hung FerretDB, whole.
 */
const RAISES_IN_FLIGHT = 16;

/** Every input of every tenant the engine consumed, at its latest version: what a replica rebuilds a tenant from. */
export interface InputStore {
  /** Keeps each input unless a newer or equal version is there. */
  record(tenant: string, inputs: readonly Input[]): Promise<void>;
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

  async function record(tenant: string, inputs: readonly Input[]): Promise<void> {
    await orUnavailable(() => inWaves(inputs, RAISES_IN_FLIGHT, (input) => raise(rowOf(tenant, input))));
  }

  async function ofTenant(tenant: string): Promise<Input[]> {
    const found = await orUnavailable(() => rows.find({ tenant }).toArray());
    return found.map(({ entity, entity_id, version, deleted, data }) => ({ entity, id: entity_id, version, deleted, data: JSON.parse(data) as Record<string, unknown> }));
  }

  return { record, ofTenant };
}
