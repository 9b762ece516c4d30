import { orUnavailable, setIfNewer, type Store } from '@rm/store';
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

/** Every input of every tenant the engine consumed, at its latest version: what a replica rebuilds a tenant from. */
export interface InputStore {
  /** Keeps the input unless a newer or equal version is there. */
  record(tenant: string, input: Input): Promise<void>;
  ofTenant(tenant: string): Promise<Input[]>;
}

export function createInputStore(store: Store): InputStore {
  const rows = store.plainCollection<InputRow>('inputs', [{ key: { tenant: 1 }, name: 'by_tenant' }]);

  async function record(tenant: string, { entity, id, version, deleted, data }: Input): Promise<void> {
    const fields = { tenant, entity, entity_id: id, deleted, data: JSON.stringify(data) };
    await orUnavailable(() => setIfNewer(rows, `${tenant}|${entity}|${id}`, version, fields, { create: true }));
  }

  async function ofTenant(tenant: string): Promise<Input[]> {
    const found = await orUnavailable(() => rows.find({ tenant }).toArray());
    return found.map(({ entity, entity_id, version, deleted, data }) => ({ entity, id: entity_id, version, deleted, data: JSON.parse(data) as Record<string, unknown> }));
  }

  return { record, ofTenant };
}
