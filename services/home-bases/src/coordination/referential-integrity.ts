import type { HomeBaseFields, HomeBaseReference, Referrer } from '@rm/contracts';
import { Conflict, ServiceUnavailable, ValidationProblem } from '@rm/service-kit';
import { type IfMatch, type Resource, type ResourceCollection, type ResourceId } from '@rm/store';
import { MARK_LIFETIME_MS, type DeletionMarks } from '../store/deletion-marks.js';
import type { ReferenceIndex } from '../store/reference-index.js';

/**
 * Referential integrity of home bases across services (issue 9). A write elsewhere that names home
 * bases claims them here first; a delete is refused while anything refers to the home base or
 * claims it. Claim and delete each write their own mark before they read the other's (the claim its
 * row, then the home base and its deletion mark; the delete its mark, then the rows), so that of a
 * claim and a delete that overlap at least one sees the other: either the delete is refused, or the
 * claim is. That needs no lock: only inserts and reads, each visible once it has answered (also on
 * FerretDB, whose conditional updates are what is not atomic), so claims of one home base go side by
 * side.
 */
export interface HomeBaseIntegrity {
  /** Claims every home base named; a 400 naming each reference to one that does not exist or is being deleted. */
  claim(tenant: string, referrer: Referrer, references: readonly HomeBaseReference[]): Promise<string>;
  /** Deletes the home base unless something refers to it (409 listing what does). */
  remove(id: ResourceId, options: { ifMatch?: IfMatch }): Promise<Resource<HomeBaseFields>>;
}

export interface HomeBaseIntegrityParts {
  homeBases: ResourceCollection<HomeBaseFields>;
  references: ReferenceIndex;
  marks: DeletionMarks;
}

export function createHomeBaseIntegrity({ homeBases, references, marks }: HomeBaseIntegrityParts): HomeBaseIntegrity {
  async function isClaimable(tenant: string, homeBase: string): Promise<boolean> {
    return !(await marks.isMarked(tenant, homeBase)) && (await homeBases.get({ tenant, key: homeBase })) !== null;
  }

  async function claim(tenant: string, referrer: Referrer, named: readonly HomeBaseReference[]): Promise<string> {
    const ids = [...new Set(named.map((reference) => reference.business_id))];
    const claimId = await references.claim(tenant, referrer, ids);
    const claimable = await Promise.all(ids.map((id) => isClaimable(tenant, id)));
    const missing = new Set(ids.filter((_, index) => !claimable[index]));
    if (missing.size === 0) return claimId;
    await references.dropClaim(tenant, claimId);
    throw new ValidationProblem(
      named
        .filter((reference) => missing.has(reference.business_id))
        .map(({ field, business_id }) => ({ field, message: `home base '${business_id}' does not exist` })),
    );
  }

  async function remove(id: ResourceId, options: { ifMatch?: IfMatch }): Promise<Resource<HomeBaseFields>> {
    const mark = await marks.mark(id.tenant, id.key);
    try {
      const { referrers, total } = await references.referrersOf(id.tenant, id.key);
      if (total > 0) {
        throw new Conflict(`home-base '${id.key}' is still referred to by ${total} resource(s); see referrers`, {
          referrers,
          referrers_total: total,
        });
      }
      // past half its lifetime, a claim could soon stop believing the mark while the delete goes on
      if (Date.now() - mark.at.getTime() > MARK_LIFETIME_MS / 2) {
        throw new ServiceUnavailable('the delete of the home base took too long to be decided safely; retry');
      }
      return await homeBases.remove(id, options);
    } finally {
      await mark.remove();
    }
  }

  return { claim, remove };
}
