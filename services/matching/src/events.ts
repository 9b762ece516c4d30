import {
  AVAILABILITY_EVENTS,
  AVAILABLE_EMPLOYEE_EVENTS,
  DEPLOYMENT_EVENTS,
  EMPLOYEE_EVENTS,
  EMPLOYEE_UNAVAILABILITY,
  HOME_BASE_EVENTS,
  serviceStream,
  TRANSPORT_RESOURCE_EVENTS,
  TRANSPORT_RESOURCE_UNAVAILABILITY,
  type EntityEvents,
} from '@rm/contracts';
import type { StreamSource } from '@nats-io/jetstream';

/**
 * What the matching engine publishes, on its stream `RM_MATCHING`: `rm.matching.<tenant>.available-employee.*`
 * (AVAILABLE_EMPLOYEE_EVENTS) and `….resource-combination.*` (RESOURCE_COMBINATION_EVENTS), one event per
 * snapshot or combination created, changed or deleted.
 */
export const SERVICE_NAME = AVAILABLE_EMPLOYEE_EVENTS.service;

/** What it consumes: every entity a snapshot or a combination depends on (DESIGN §6). */
export const INPUT_EVENTS: readonly EntityEvents[] = [
  EMPLOYEE_EVENTS,
  AVAILABILITY_EVENTS,
  EMPLOYEE_UNAVAILABILITY.events,
  TRANSPORT_RESOURCE_EVENTS,
  TRANSPORT_RESOURCE_UNAVAILABILITY.events,
  HOME_BASE_EVENTS,
  DEPLOYMENT_EVENTS,
];

/**
 * `RM_MATCHING_INPUTS`: a copy of the input events of the publishers' streams, each subject prefixed with
 * its tenant's partition (JetStream's subject-mapping `partition()` over the tenant token):
 * `matching-inputs.<partition>.<service>.<tenant>.<entity>.<action>`. A durable per partition reads
 * one tenant's events in order, and only the replica holding the partition runs it. The number of
 * partitions is fixed once the stream holds events: changing it splits tenants' histories.
 */
export const INPUTS_STREAM = 'RM_MATCHING_INPUTS';
const INPUTS_PREFIX = 'matching-inputs';

export function inputSources(partitions: number): StreamSource[] {
  const publishers = [...new Set(INPUT_EVENTS.map((events) => events.service))];
  return publishers.map((publisher) => ({
    name: serviceStream(publisher).name,
    subject_transforms: INPUT_EVENTS.filter((events) => events.service === publisher).map((events) => ({
      src: `rm.${publisher}.*.${events.entity}.*`,
      dest: `${INPUTS_PREFIX}.{{partition(${partitions},1)}}.${publisher}.{{wildcard(1)}}.${events.entity}.{{wildcard(2)}}`,
    })),
  }));
}

export const partitionSubjects = (partition: number) => [`${INPUTS_PREFIX}.${partition}.>`];
