import { EMPLOYEE_EVENTS, TRANSPORT_RESOURCE_EVENTS } from '@rm/contracts';
import { ServiceUnavailable } from '@rm/service-kit';
import type { ClaimCaller } from '@rm/service-kit/resources';

/** Who asks: the owner answers the caller's own token, so in the caller's tenant (as the home-base claims do). */
export type OwnerCaller = Pick<ClaimCaller, 'authorization'>;

/**
 * The services that own the employees and transport resources this one's writes name, asked about
 * one of them: `HEAD <owner>/<path>/{id}`, whose ETag gives the version it is at.
 */
export interface ResourceOwners {
  /** The version of `entity` `id` at its owner; undefined when the owner does not have it. 503 when the owner cannot say. */
  versionAt(caller: OwnerCaller, entity: string, id: string): Promise<number | undefined>;
}

export interface ResourceOwnersOptions {
  /** The API base URLs of the employees and the transport-resources service (EMPLOYEES_URL, TRANSPORT_RESOURCES_URL). */
  employeesUrl: string;
  transportResourcesUrl: string;
  timeoutMs: number;
}

/** One owner: where its resources are, and what it is called in an answer. */
interface Owner {
  itemsUrl: string;
  label: string;
}

export function createResourceOwners({ employeesUrl, transportResourcesUrl, timeoutMs }: ResourceOwnersOptions): ResourceOwners {
  const itemsUrl = (baseUrl: string, path: string) => `${baseUrl.replace(/\/$/, '')}${path}`;
  const owners = new Map<string, Owner>([
    [EMPLOYEE_EVENTS.entity, { itemsUrl: itemsUrl(employeesUrl, '/employee'), label: 'employees' }],
    [TRANSPORT_RESOURCE_EVENTS.entity, { itemsUrl: itemsUrl(transportResourcesUrl, '/transport-resource'), label: 'transport resources' }],
  ]);

  return {
    async versionAt(caller, entity, id) {
      const owner = owners.get(entity);
      if (owner === undefined) throw new Error(`no owner of ${entity} is configured`);
      // valid business ids that no URL can name (the parser resolves them away, encoded or not): never stored
      if (id === '.' || id === '..') return undefined;
      let response: Response;
      try {
        response = await fetch(`${owner.itemsUrl}/${encodeURIComponent(id)}`, {
          method: 'HEAD',
          headers: { authorization: caller.authorization },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new ServiceUnavailable(`${owner.label} cannot be checked right now; retry later`, { cause: error });
      }
      if (response.status === 404) return undefined;
      const version = response.status === 200 ? versionOf(response.headers.get('etag')) : undefined;
      if (version === undefined) throw new ServiceUnavailable(`${owner.label} cannot be checked right now (${response.status}); retry later`);
      return version;
    },
  };
}

/** The version a weak ETag `W/"<version>"` names (service-kit's etag()); undefined for any other. */
function versionOf(etag: string | null): number | undefined {
  const match = /^W\/"(\d{1,15})"$/.exec(etag ?? '');
  return match === null ? undefined : Number(match[1]);
}
