import { intervalOf, type Interval } from './domain/interval.js';
import type { AvailableEmployee, StartKey } from './domain/snapshot.js';
import type { CombinationView } from './domain/tenant-matching.js';
import type { AvailableEmployeeFields, CombinationFields } from './store/outputs.js';

const iso = (time: number) => new Date(time).toISOString();
const spanOf = ({ start, end }: Interval) => ({ start: iso(start), end: iso(end) });

function locationOf(location: StartKey): AvailableEmployeeFields['location'] {
  switch (location.kind) {
    case 'home-base':
      return { home_base_id: location.id };
    case 'ad-hoc':
      return { name: location.name };
    case 'journey':
      return { at_last_end: true, transport_resource_ids: [...location.transportResourceIds] };
    case 'none':
      return {};
  }
}

/** What the read API shows and the events carry of a snapshot. */
export function availableEmployeeFields(shift: AvailableEmployee): AvailableEmployeeFields {
  return {
    employee_id: shift.employeeId,
    shift: spanOf(shift.window),
    ...(shift.guaranteed === null ? {} : { guaranteed_working_time: spanOf(shift.guaranteed) }),
    location: locationOf(shift.location),
    mandatory: shift.mandatory,
    driver_skills: [...shift.driverSkills],
    skills: [...shift.skills],
    ...(shift.linkedTransportResource === undefined ? {} : { linked_transport_resource: shift.linkedTransportResource }),
    ...(shift.costs === undefined ? {} : { costs: shift.costs }),
    unavailabilities: shift.unavailable.map(({ start, end }) => ({ from: iso(start), to: iso(end) })),
    ...(shift.address === undefined ? {} : { address: shift.address }),
  };
}

/** What the read API shows and the events carry of a combination. */
export function combinationFields(combination: CombinationView): CombinationFields {
  const { snapshot } = combination;
  return {
    employee_id: combination.employeeId,
    transport_resource_ids: [...combination.transportResourceIds],
    shift: spanOf(snapshot.window),
    ...(snapshot.guaranteed === null ? {} : { guaranteed_working_time: spanOf(snapshot.guaranteed) }),
    mandatory: snapshot.mandatory,
    capabilities: [...combination.capabilities],
    linked: combination.linked,
    ...(combination.deploymentId === undefined ? {} : { deployment_id: combination.deploymentId }),
  };
}

/** The snapshot as the engine held it when it wrote these fields: what a read of the outputs checks pairs with (candidates). */
export function availableEmployeeOf(availabilityId: string, fields: AvailableEmployeeFields): AvailableEmployee {
  const interval = ({ start, end }: { start: string; end: string }) => intervalOf(start, end);
  return {
    availabilityId,
    employeeId: fields.employee_id,
    window: interval(fields.shift),
    guaranteed: fields.guaranteed_working_time === undefined ? null : interval(fields.guaranteed_working_time),
    location: startKeyOf(fields.location),
    mandatory: fields.mandatory,
    driverSkills: fields.driver_skills,
    skills: fields.skills,
    ...(fields.linked_transport_resource === undefined ? {} : { linkedTransportResource: fields.linked_transport_resource }),
    ...(fields.costs === undefined ? {} : { costs: fields.costs }),
    unavailable: fields.unavailabilities.map(({ from, to }) => intervalOf(from, to)),
    ...(fields.address === undefined ? {} : { address: fields.address }),
  };
}

function startKeyOf(location: AvailableEmployeeFields['location']): StartKey {
  if (location.home_base_id !== undefined) return { kind: 'home-base', id: location.home_base_id };
  if (location.name !== undefined) return { kind: 'ad-hoc', name: location.name };
  if (location.at_last_end === true) return { kind: 'journey', transportResourceIds: location.transport_resource_ids ?? [] };
  return { kind: 'none' };
}
