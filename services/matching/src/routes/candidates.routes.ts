import type { FastifyPluginAsync } from 'fastify';
import { AvailableEmployeeCandidates, MatchingParams, Problem, type MatchingParams as Params, type TransportResource } from '@rm/contracts';
import { NotFound } from '@rm/service-kit';
import { overlapping } from '@rm/store';
import { candidatesOf } from '../domain/candidates.js';
import { transportResourceView } from '../domain/feasibility.js';
import { intervalOf } from '../domain/interval.js';
import { INPUT_ENTITY } from '../domain/tenant-matching.js';
import { availableEmployeeOf } from '../representation.js';
import type { InputStore } from '../store/inputs.js';
import type { Outputs } from '../store/outputs.js';

export interface CandidatesRoutesOptions {
  inputs: InputStore;
  outputs: Outputs;
}

type Unavailability = { transport_resource_id: string; from: string; to: string };

/**
 * `GET /available-employee/{id}/candidates` (ours, issue 30): why a shift is or is not combined. Any
 * replica answers, from what the engine stored: the snapshot, the transport resources and their
 * unavailabilities it recorded as inputs, and the combinations that overlap the shift.
 */
export const candidatesRoutes: FastifyPluginAsync<CandidatesRoutesOptions> = async (app, { inputs, outputs }) => {
  app.get<{ Params: Params }>(
    '/available-employee/:id/candidates',
    { schema: { params: MatchingParams, response: { 200: AvailableEmployeeCandidates, 400: Problem, 404: Problem } } },
    async (request) => {
      const { tenant } = request.auth;
      const found = await outputs.availableEmployees.get({ tenant, key: request.params.id });
      if (found === null) throw new NotFound(`available employee '${request.params.id}' does not exist`);
      const shift = availableEmployeeOf(found.key, found.body);
      const [resources, unavailabilities, combinations] = await Promise.all([
        inputs.liveOf(tenant, INPUT_ENTITY.transportResource),
        inputs.liveOf(tenant, INPUT_ENTITY.transportResourceUnavailability),
        outputs.combinations.find({ tenant }, overlapping('span.start', 'span.end', { from: new Date(shift.window.start), until: new Date(shift.window.end) })),
      ]);
      const unavailableBy = Map.groupBy(unavailabilities as Unavailability[], (each) => each.transport_resource_id);
      const views = (resources as unknown as TransportResource[]).map((resource) => transportResourceView(resource, unavailableBy.get(resource.business_id) ?? []));
      const occupants = combinations.map(({ key, body }) => ({
        combinationId: key,
        employeeId: body.employee_id,
        window: intervalOf(body.shift.start, body.shift.end),
        transportResourceIds: body.transport_resource_ids,
      }));
      const own = occupants.find((occupant) => occupant.combinationId === shift.availabilityId);
      return {
        available_employee_id: found.key,
        employee_id: found.body.employee_id,
        shift: found.body.shift,
        ...(found.body.guaranteed_working_time === undefined ? {} : { guaranteed_working_time: found.body.guaranteed_working_time }),
        ...(own === undefined ? {} : { combined_with: [...own.transportResourceIds] }),
        candidates: candidatesOf(shift, views, occupants),
      };
    },
  );
};
