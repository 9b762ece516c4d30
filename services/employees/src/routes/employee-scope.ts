import type { FastifyRequest } from 'fastify';
import { NotFound, resourceUrl } from '@rm/service-kit';
import type { Scope } from '@rm/store';
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

/** Absolute URI of a sub-resource: `/employee/{employee_id}/{segment}/{id}`. */
export function subResourceUrl(request: FastifyRequest, { parent }: Required<Scope>, segment: string, id: string): string {
  return resourceUrl(request, `/employee/${parent}/${segment}/${id}`);
}
