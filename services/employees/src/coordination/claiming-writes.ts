import type { FastifyRequest } from 'fastify';
import type { Referrer } from '@rm/contracts';
import { parseIfMatch } from '@rm/service-kit';
import { claimCallerOf, type HomeBaseClaims } from '@rm/service-kit/resources';
import type { Resource, ResourceCollection, Scope } from '@rm/store';

/**
 * The create of an employee's sub-resource under the key it is given (what createOnce runs): the home bases
 * its body names are claimed first, as the referrer that key makes it.
 */
export function claimingCreate<Body>(
  { homeBases, request, items, referrerOf }: ClaimingWriteParts<Body>,
  scope: Required<Scope>,
  body: Body,
): (key: string) => Promise<Resource<Body>> {
  return async (key) => {
    const write = async () => ({ resource: await items.create(scope, body, key) });
    return (await homeBases.write(claimCallerOf(request), referrerOf(scope, key), body, write)).resource;
  };
}

/**
 * The update of an employee's sub-resource under the request's If-Match: the home bases its body names are
 * claimed first, as its referrer (so an unknown home base is told before a malformed If-Match, as for employees).
 */
export async function claimingUpdate<Body>(
  { homeBases, request, items, referrerOf }: ClaimingWriteParts<Body>,
  scope: Required<Scope>,
  key: string,
  body: Body,
): Promise<Resource<Body>> {
  const write = async () => items.put({ ...scope, key }, body, { ifMatch: parseIfMatch(request.headers['if-match']), mode: 'update' });
  return (await homeBases.write(claimCallerOf(request), referrerOf(scope, key), body, write)).resource;
}

interface ClaimingWriteParts<Body> {
  homeBases: HomeBaseClaims;
  request: FastifyRequest;
  items: ResourceCollection<Body>;
  /** How the sub-resource names itself to the home-bases service (its entity and id). */
  referrerOf(scope: Scope, key: string): Referrer;
}
