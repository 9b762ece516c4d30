import type { FastifyPluginAsync } from 'fastify';
import {
  HomeBaseClaim,
  HomeBaseClaimBody,
  HomeBaseClaimParams,
  HomeBaseClaimSettlement,
  Problem,
  type HomeBaseClaimBody as ClaimBody,
  type HomeBaseClaimParams as ClaimParams,
  type HomeBaseClaimSettlement as Settlement,
} from '@rm/contracts';
import { NotFound, requireInternalApiKey } from '@rm/service-kit';
import type { HomeBaseIntegrity } from '../coordination/referential-integrity.js';
import type { ReferenceIndex } from '../store/reference-index.js';

export interface HomeBaseClaimRoutesOptions {
  integrity: HomeBaseIntegrity;
  references: ReferenceIndex;
  /** INTERNAL_API_KEY: only the services, which hold it, may claim. */
  internalApiKey: string;
}

const CLAIMS = '/internal/home-base-claims';

/**
 * Claims on home bases, for the other services' writes that name them (service-kit's
 * HomeBaseClaims): claim before the write, then settle with the version written, or drop when
 * nothing was written. Under `/internal`, which the gateway neither routes nor documents; the caller
 * passes on its own caller's token, so a claim is always in that tenant, with the services' key.
 */
export const homeBaseClaimRoutes: FastifyPluginAsync<HomeBaseClaimRoutesOptions> = async (app, { integrity, references, internalApiKey }) => {
  app.addHook('onRequest', requireInternalApiKey(internalApiKey));

  app.post<{ Body: ClaimBody }>(
    CLAIMS,
    { schema: { body: HomeBaseClaimBody, response: { 201: HomeBaseClaim, 400: Problem } } },
    async (request, reply) => {
      const claimId = await integrity.claim(request.auth.tenant, request.body.referrer, request.body.references);
      return reply.status(201).send({ claim_id: claimId });
    },
  );

  app.put<{ Params: ClaimParams; Body: Settlement }>(
    `${CLAIMS}/:claim_id`,
    { schema: { params: HomeBaseClaimParams, body: HomeBaseClaimSettlement, response: { 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const known = await references.settleClaim(request.auth.tenant, request.params.claim_id, request.body.version);
      if (!known) throw new NotFound(`claim '${request.params.claim_id}' does not exist`);
      return reply.status(204).send();
    },
  );

  app.delete<{ Params: ClaimParams }>(
    `${CLAIMS}/:claim_id`,
    { schema: { params: HomeBaseClaimParams, response: { 400: Problem } } },
    async (request, reply) => {
      await references.dropClaim(request.auth.tenant, request.params.claim_id);
      return reply.status(204).send();
    },
  );
};
