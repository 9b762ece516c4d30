import type { FastifyRequest } from 'fastify';
import type { TimeRangeQuery } from '@rm/contracts';
import { NotFound, parseTimeRange, resourceUrl } from '@rm/service-kit';
import { overlapping, type Resource, type ResourceCollection, type Scope } from '@rm/store';
import type { EmployeeRepository } from '../store/employee-repository.js';

/** The sub-resources of the employee in the path, in the caller's tenant. */
export function employeeScope(request: FastifyRequest<{ Params: { employee_id: string } }>): Required<Scope> {
  return { tenant: request.auth.tenant, parent: request.params.employee_id };
}

/**
 * Reads of an unknown employee's sub-resources are 404 naming the employee (writes learn it from the
 * store, which checks the employee inside their guarded decision).
 */
export async function assertEmployeeExists(employees: EmployeeRepository, { tenant, parent }: Required<Scope>): Promise<void> {
  if ((await employees.get({ tenant, key: parent })) === null) throw new NotFound(`employee '${parent}' does not exist`);
}

/**
 * The sub-resource in the path: 404 naming the employee when it is unknown, else naming the
 * sub-resource (`label`) when it is not there.
 */
export async function readSubResource<Body>(
  employees: EmployeeRepository,
  items: ResourceCollection<Body>,
  scope: Required<Scope>,
  { key, label }: { key: string; label: string },
): Promise<Resource<Body>> {
  await assertEmployeeExists(employees, scope);
  const found = await items.get({ ...scope, key });
  if (found === null) throw new NotFound(`${label} '${key}' does not exist`);
  return found;
}

/** Lists and bulk deletes by range match sub-resources whose indexed `span` overlaps it (spec: Conventions 5). */
export function spanOverlapping(query: TimeRangeQuery) {
  return overlapping('span.start', 'span.end', parseTimeRange(query));
}

/** Absolute URI of a sub-resource: `/employee/{employee_id}/{segment}/{id}`. */
export function subResourceUrl(request: FastifyRequest, { parent }: Required<Scope>, segment: string, id: string): string {
  return resourceUrl(request, `/employee/${parent}/${segment}/${id}`);
}
