import { Employee, entityEvents, type EmployeeFields, type EntityEvents } from '@rm/contracts';
import { bucketsOf, createStore, documentId, toJsonText, type ResourceCollection, type Store, type StoredDocument } from '@rm/store';
import type { Db } from 'mongodb';

/** A valid employee (about 400 bytes of JSON), different per index; `revision` changes it again. */
export function employeeFields(index: number, revision = 0): EmployeeFields {
  return {
    name: { first_name: 'Ada', last_name: `Peeters ${index}` },
    driver_skills: ['C', 'CE'],
    skills: ['nl', 'fr'],
    start_location: { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' },
    labels: ['night', `revision-${revision}`],
    costs: { fixed: 120, per_hour: 31.5, per_km: 0.42 },
  };
}

/** Business ids that sort like their index. */
export function employeeKey(prefix: string, index: number): string {
  return `${prefix}-${String(index).padStart(6, '0')}`;
}

/**
 * Employee `index` of a tenant stored as put() leaves it once the relay has published its event (no
 * outbox): the plain document the baselines write, and what seeds a collection in bulk.
 */
export function storedEmployee(tenant: string, key: string, index: number): StoredDocument<EmployeeFields> {
  const at = new Date();
  const body = toJsonText(employeeFields(index));
  return { _id: documentId({ tenant, key }), tenant, key, version: 1, body, pages: bucketsOf(key), created_at: at, updated_at: at };
}

/** The employee events of a publisher of the bench's own (its stream apart from every other series'). */
export function employeeEvents(service: string): EntityEvents {
  return entityEvents(service, 'employee', Employee);
}

export function benchStore(db: Db): Store {
  return createStore(db, { maxEventBytes: 1024 ** 2 });
}

/** Employees in a store collection as the employees service keeps them, under any name and publisher. */
export function employeeCollection(store: Store, options: { name: string; service: string }): ResourceCollection<EmployeeFields> {
  return store.collection<EmployeeFields>({
    name: options.name,
    events: employeeEvents(options.service),
    represent: (resource) => ({ business_id: resource.key, ...resource.body, version: resource.version }),
  });
}
