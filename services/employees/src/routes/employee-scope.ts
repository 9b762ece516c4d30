import type { FastifyRequest } from 'fastify';
import type { Referrer } from '@rm/contracts';
import { claimCallerOf, type HomeBaseClaims, type SubResourceParent } from '@rm/service-kit';
import type { Resource, ResourceCollection, Scope } from '@rm/store';
import type { EmployeeRepository } from '../store/employee-repository.js';

/** The employee in a sub-resource's path: `/employee/{employee_id}/…`. */
export function employeeParent(employees: EmployeeRepository): SubResourceParent {
  return { path: '/employee', param: 'employee_id', label: 'employee', resources: employees };
}

/**
 * The create of an employee's sub-resource under the key it is given (what createOnce runs): the home bases
 * its body names are claimed first, as the referrer that key makes it.
 */
export function claimingCreate<Body>(
  { homeBases, request, items, referrerOf }: ClaimingCreateParts<Body>,
  scope: Required<Scope>,
  body: Body,
): (key: string) => Promise<Resource<Body>> {
  return async (key) => {
    const write = async () => ({ resource: await items.create(scope, body, key) });
    return (await homeBases.write(claimCallerOf(request), referrerOf(scope, key), body, write)).resource;
  };
}

interface ClaimingCreateParts<Body> {
  homeBases: HomeBaseClaims;
  request: FastifyRequest;
  items: ResourceCollection<Body>;
  /** How the sub-resource names itself to the home-bases service (its entity and id). */
  referrerOf(scope: Scope, key: string): Referrer;
}
