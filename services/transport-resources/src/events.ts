import { TRANSPORT_RESOURCE_EVENTS } from '@rm/contracts';

/**
 * What the transport-resources service publishes, on its stream `RM_TRANSPORT_RESOURCES`, on
 * `rm.transport-resources.<tenant>.<entity>.<created|updated|deleted>`: `transport-resource`
 * (TRANSPORT_RESOURCE_EVENTS) and `transport-resource-unavailability` (its events name the transport
 * resource in `entity_id`, `<transport_resource_id>/<id>`). Deleting a transport resource publishes
 * the deletion of each of its unavailabilities too. It consumes nothing.
 */
export const SERVICE_NAME = TRANSPORT_RESOURCE_EVENTS.service;
