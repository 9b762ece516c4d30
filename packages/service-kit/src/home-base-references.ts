import type { Violation } from '@rm/contracts';
import { ValidationProblem } from './errors.js';

/** A home base named in a body, with the JSON path of its id. */
interface HomeBaseReference {
  field: string;
  businessId: string;
}

/**
 * Every home base a body names: `home_base: { business_id }` objects and the deprecated
 * `home_base_id`, wherever they are (employee, transport resource, availability, the shifts of a
 * schedule). `custom_data` is the caller's own, not a reference.
 */
function homeBaseReferences(value: unknown, path = ''): HomeBaseReference[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => homeBaseReferences(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]): HomeBaseReference[] => {
    if (path === '' && key === 'custom_data') return [];
    const field = path === '' ? key : `${path}.${key}`;
    if (key === 'home_base_id' && typeof item === 'string') return [{ field, businessId: item }];
    if (key === 'home_base' && typeof item === 'object' && item !== null && 'business_id' in item && typeof item.business_id === 'string') {
      return [{ field: `${field}.business_id`, businessId: item.business_id }];
    }
    return homeBaseReferences(item, field);
  });
}

/**
 * The one place where the home bases a write names are checked to exist in the tenant: a 400 naming
 * each unknown one. Every write of every service that names a home base comes through here.
 */
export async function assertHomeBasesExist(tenant: string, body: unknown): Promise<void> {
  const violations = await unknownHomeBases(tenant, homeBaseReferences(body));
  if (violations.length > 0) throw new ValidationProblem(violations);
}

/** The home-bases service that owns them does not exist yet (issue 9): until it does, every reference is accepted. */
async function unknownHomeBases(_tenant: string, _references: readonly HomeBaseReference[]): Promise<Violation[]> {
  return [];
}
