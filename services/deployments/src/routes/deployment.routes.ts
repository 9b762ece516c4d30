import type { FastifyPluginAsync } from 'fastify';
import {
  Deployment,
  DeploymentBody,
  DEPLOYMENT_EVENTS,
  DeploymentPage,
  DeploymentParams,
  PageQuery,
  Problem,
  type DeploymentInput,
  type DeploymentParams as Params,
  type PageQuery as Query,
} from '@rm/contracts';
import {
  NotFound,
  parseIfMatch,
  replyDeleted,
  replyRead,
  replyWritten,
  resourceUrl,
  ValidationProblem,
  type CursorCodec,
} from '@rm/service-kit';
import { claimCallerOf, pageOfResources, type HomeBaseClaims } from '@rm/service-kit/resources';
import type { DeploymentWriter } from '../coordination/deployment-writer.js';
import { decideDeployment } from '../domain/deployment.js';
import { toDeployment, type DeploymentRepository } from '../store/deployment-repository.js';

export interface DeploymentRoutesOptions {
  deployments: DeploymentRepository;
  writer: DeploymentWriter;
  /** A start location's home base is claimed for the write (HomeBaseClaims). */
  homeBases: HomeBaseClaims;
  cursors: CursorCodec;
}

const problems = { 400: Problem, 404: Problem, 409: Problem, 412: Problem };
const itemSchema = { schema: { params: DeploymentParams, response: problems } };

/** `/deployment…` (spec: Deployments, experimental): every deployment is read here; only external ones are written. */
export const deploymentRoutes: FastifyPluginAsync<DeploymentRoutesOptions> = async (app, { deployments, writer, homeBases, cursors }) => {
  const listSchema = { querystring: PageQuery, response: { 200: DeploymentPage, 400: Problem } };
  app.get<{ Querystring: Query }>('/deployment', { schema: listSchema }, async (request) => {
    const page = await pageOfResources(deployments, { tenant: request.auth.tenant }, 'deployments', request.query, cursors);
    return { deployments: page.items.map(toDeployment), cursors: page.cursors };
  });

  app.get<{ Params: Params }>(
    '/deployment/:id',
    { schema: { params: DeploymentParams, response: { 200: Deployment, 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const found = await deployments.get({ tenant: request.auth.tenant, key: request.params.id });
      if (found === null) throw new NotFound(`deployment '${request.params.id}' does not exist`);
      return replyRead(reply, { body: toDeployment(found), version: found.version });
    },
  );

  app.put<{ Params: Params; Body: DeploymentInput }>(
    '/deployment/:id',
    { schema: { params: DeploymentParams, body: DeploymentBody, response: { 200: Deployment, 201: Deployment, ...problems } } },
    async (request, reply) => {
      const decision = decideDeployment(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const id = { tenant: request.auth.tenant, key: request.params.id };
      const ifMatch = parseIfMatch(request.headers['if-match']);
      const referrer = { entity: DEPLOYMENT_EVENTS.entity, id: id.key };
      const caller = claimCallerOf(request);
      const { resource, created } = await homeBases.write(caller, referrer, decision.fields, () => writer.put(caller, id, decision.fields, { ifMatch }));
      return replyWritten(reply, {
        status: created ? 201 : 200,
        body: toDeployment(resource),
        version: resource.version,
        location: resourceUrl(request, `/deployment/${resource.key}`),
      });
    },
  );

  app.delete<{ Params: Params }>('/deployment/:id', itemSchema, async (request, reply) => {
    await writer.remove({ tenant: request.auth.tenant, key: request.params.id }, { ifMatch: parseIfMatch(request.headers['if-match']) });
    return replyDeleted(reply);
  });
};
