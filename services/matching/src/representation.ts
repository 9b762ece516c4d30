import type { Interval } from './domain/interval.js';
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
