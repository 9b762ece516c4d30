/** What the API document says of one operation, beside what its owner's route schemas say. */
export interface OperationText {
  /** The original service's name where it had one, so that clients generated against it keep working. */
  operationId: string;
  tag: TagName;
  summary: string;
  description: string;
  /** Marked experimental by the spec, or an extension of ours: it may still change (`x-experimental`). */
  experimental?: true;
}

export type TagName = (typeof TAGS)[number]['name'];

/** The document's tags, one per resource, in the order the docs page shows them. */
export const TAGS = [
  { name: 'Health', description: 'Checks that a client reaches the API with a valid token.' },
  {
    name: 'Employee',
    description:
      'Employees whose role matters for planning, typically those who can operate transport resources. An employee is ' +
      'identified by a business id its caller chooses; deleting one removes its shift schedules, availabilities, ' +
      'unavailabilities, actuals and external deployments, but never a combination a released route has deployed.',
  },
  {
    name: 'Shift Schedule',
    description:
      "Recurring weekly patterns of an employee's availability: numbered week templates of shifts, starting on a given day " +
      'with a given template. A schedule creates no availabilities by itself.',
  },
  {
    name: 'Availability',
    description:
      'Concrete time ranges in which an employee can work. Each write consolidates a snapshot of the employee (an ' +
      'AvailableEmployee), which the matching engine pairs with transport resources. Availabilities of one employee never overlap.',
  },
  {
    name: 'Employee Unavailability',
    description: 'Experimental. Time ranges in which an employee cannot be matched with a transport resource.',
  },
  {
    name: 'Transport Resource',
    description:
      'Trucks, tractors and trailers. A transport resource is available unless an unavailability says otherwise; its ' +
      'presence makes the matching engine pair it with available employees. Deleting one removes its combinations, ' +
      'unavailabilities and external deployments.',
  },
  {
    name: 'Transport Resource Unavailability',
    description:
      'Experimental. Time ranges in which a transport resource cannot be matched. Combinations whose guaranteed working ' +
      'time overlaps one are deleted; others that overlap are evaluated again.',
  },
  {
    name: 'Home Base',
    description:
      'Experimental, except the list. Reusable addresses that employees, availabilities, shift schedules, transport ' +
      'resources and deployments refer to; a change reaches everything that refers to it, and a home base cannot be ' +
      'deleted while anything does.',
  },
  {
    name: 'Forecast',
    description:
      'Experimental. The number of shifts expected on a day at a location, for capacity planning displays only: no ' +
      'calculation uses it.',
  },
  {
    name: 'Deployment',
    description:
      'Experimental. Assignments of an employee to transport resources for a period from a location. External ' +
      'deployments are written here and never overlap another deployment of the same employee or transport resource; ' +
      'those of released routes carry a `planning_id` and change only through the planning platform.',
  },
  {
    name: 'Actual',
    description: "Worked hours of an employee's completed shifts.",
  },
  {
    name: 'Resource Combination',
    description:
      'Ours, experimental and read-only: the pairings of available employees with transport resources that the matching ' +
      'engine keeps, by itself, as the best it knows.',
  },
  {
    name: 'Available Employee',
    description:
      "Ours, experimental and read-only: the consolidated snapshot of an employee's availability that the matching engine " +
      'works from (availabilities less unavailabilities).',
  },
  {
    name: 'Change Feed',
    description:
      "Every change of every resource of the caller's tenant, combinations included, as server-sent events: open it once, " +
      'resume from the last event id after a break, and nothing is lost or repeated.',
  },
  {
    name: 'Bulk Load',
    description: "Many writes in one request: a customer's first load, or a nightly sync, at the speed the owners write.",
  },
  {
    name: 'Webhook Subscription',
    description:
      "Where the tenant's changes are POSTed as they happen, signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`, " +
      '`webhook-signature`); the body is the change-feed event. A failed delivery is tried again, with the same `webhook-id`, ' +
      'for 24 hours; a subscription whose deliveries fail for 3 days is disabled, with the reason.',
  },
] as const;

const PAGING = 'Cursor-paged: follow `cursors.next` until it is absent.';
const IF_MATCH = 'With `If-Match`, only if the current version matches (412 otherwise).';
const TIME_RANGE = 'With `from` and/or `until`, only those overlapping that range.';

/** Every operation of the v1 API, by `<METHOD> <path>` as the document lists it. */
export const OPERATIONS: Record<string, OperationText> = {
  'GET /ping': {
    operationId: 'ping',
    tag: 'Health',
    summary: 'Checks the connection',
    description: 'Answers `pong` when the token is valid and the API is reachable.',
  },

  'GET /employee': {
    operationId: 'getPagedEmployees',
    tag: 'Employee',
    summary: 'Lists employees',
    description: `The employees of the caller's tenant in a stable order. ${PAGING}`,
  },
  'GET /employee/{employee_id}': {
    operationId: 'getEmployee',
    tag: 'Employee',
    summary: 'Reads an employee',
    description: 'The employee with its version in `ETag`.',
  },
  'PUT /employee/{employee_id}': {
    operationId: 'upsertEmployee',
    tag: 'Employee',
    summary: 'Creates or replaces an employee',
    description: `Creates the employee (201) or replaces it (200). The home base it names must exist. ${IF_MATCH}`,
  },
  'DELETE /employee/{employee_id}': {
    operationId: 'deleteEmployee',
    tag: 'Employee',
    summary: 'Deletes an employee',
    description:
      'Deletes the employee and all its sub-resources. Combinations deployed by a released route are not removed. ' + IF_MATCH,
  },

  'GET /employee/{employee_id}/shift-schedule': {
    operationId: 'getShiftSchedulesByEmployeeId',
    tag: 'Shift Schedule',
    summary: "Lists an employee's shift schedules",
    description: 'All shift schedules of the employee, each with its version.',
  },
  'POST /employee/{employee_id}/shift-schedule': {
    operationId: 'addShiftSchedule',
    tag: 'Shift Schedule',
    summary: 'Adds a shift schedule',
    description:
      'Creates a shift schedule with a generated id, given in `Location`. Shifts must not overlap, within a week or across ' +
      'neighbouring weeks (the last week rolls over to the first).',
  },
  'GET /employee/{employee_id}/shift-schedule/{generated_id}': {
    operationId: 'getShiftSchedule',
    tag: 'Shift Schedule',
    summary: 'Reads a shift schedule',
    description: 'The shift schedule with its version. Ours: the spec lists no read of one schedule.',
    experimental: true,
  },
  'PUT /employee/{employee_id}/shift-schedule/{generated_id}': {
    operationId: 'updateShiftSchedule',
    tag: 'Shift Schedule',
    summary: 'Replaces a shift schedule',
    description: `Replaces the shift schedule (404 if it does not exist), under the same rules as a new one. ${IF_MATCH}`,
  },
  'DELETE /employee/{employee_id}/shift-schedule/{generated_id}': {
    operationId: 'deleteShiftSchedule',
    tag: 'Shift Schedule',
    summary: 'Deletes a shift schedule',
    description: `Deletes the shift schedule. ${IF_MATCH}`,
  },

  'GET /employee/{employee_id}/availability': {
    operationId: 'getEmployeeAvailabilities',
    tag: 'Availability',
    summary: "Lists an employee's availabilities",
    description: `The employee's availabilities. ${TIME_RANGE}`,
  },
  'POST /employee/{employee_id}/availability': {
    operationId: 'addEmployeeAvailability',
    tag: 'Availability',
    summary: 'Adds an availability',
    description:
      'Creates an availability with a generated id, given in `Location`; it must not overlap another of the employee (409). ' +
      'The matching engine takes it into account within moments.',
  },
  'DELETE /employee/{employee_id}/availability': {
    operationId: 'deleteEmployeeAvailabilities',
    tag: 'Availability',
    summary: 'Deletes availabilities in a range',
    description: `Deletes every availability of the employee that overlaps the range, including those partly outside it. ${TIME_RANGE}`,
  },
  'GET /employee/{employee_id}/availability/{generated_id}': {
    operationId: 'getEmployeeAvailability',
    tag: 'Availability',
    summary: 'Reads an availability',
    description: 'The availability with its version in `ETag`.',
  },
  'PUT /employee/{employee_id}/availability/{generated_id}': {
    operationId: 'updateEmployeeAvailability',
    tag: 'Availability',
    summary: 'Replaces an availability',
    description: `Replaces the availability (404 if it does not exist); it must not overlap another of the employee (409). ${IF_MATCH}`,
  },
  'DELETE /employee/{employee_id}/availability/{generated_id}': {
    operationId: 'deleteEmployeeAvailability',
    tag: 'Availability',
    summary: 'Deletes an availability',
    description: `Deletes the availability and the combination tied to it, unless a released route has deployed it. ${IF_MATCH}`,
  },
  'POST /availability-generation': {
    operationId: 'generateTenantAvailabilities',
    tag: 'Availability',
    summary: "Creates the availabilities every employee's schedules imply",
    description:
      'Ours: as the employee\'s availability generation, for the tenant\'s employees that have a shift schedule, by id: at ' +
      'most 20 a call, fewer when they have many availabilities to create (about 1,000 a call). While `next_after` is in ' +
      'the answer, send the same request again with it as `after`.',
    experimental: true,
  },
  'GET /employee/{employee_id}/expected-availability': {
    operationId: 'getExpectedAvailability',
    tag: 'Availability',
    summary: "Lists the shifts an employee's schedules imply",
    description:
      'Ours: every shift the shift schedules imply that starts in `[from, until)` (at most 92 days), in start order, read in ' +
      '`time_zone` (IANA, default UTC: a schedule names no zone). Each names its schedule, template and position, the ' +
      'availability it stands for, where it starts (the shift\'s location, else the employee\'s), and the availability ' +
      'that covers it (one that starts when it does) or one that overlaps it without covering it.',
    experimental: true,
  },
  'POST /employee/{employee_id}/availability-generation': {
    operationId: 'generateAvailabilities',
    tag: 'Availability',
    summary: "Creates the availabilities an employee's schedules imply",
    description:
      'Ours: creates an availability, as a single POST would, for every expected shift of the range (see the expected ' +
      'availability) that no availability covers, of every schedule or of `shift_schedule_id`. Answers what it created, what ' +
      'existed already, what it could not create because it overlaps another availability (naming it), and what was refused ' +
      'otherwise. Running it again creates nothing more.',
    experimental: true,
  },

  'GET /employee/{employee_id}/unavailability': {
    operationId: 'getEmployeeUnavailabilities',
    tag: 'Employee Unavailability',
    summary: "Lists an employee's unavailabilities",
    description: `The employee's unavailabilities, each with its version. ${TIME_RANGE}`,
    experimental: true,
  },
  'POST /employee/{employee_id}/unavailability': {
    operationId: 'addEmployeeUnavailability',
    tag: 'Employee Unavailability',
    summary: 'Adds an employee unavailability',
    description: 'Creates an unavailability with a generated id, given in `Location`.',
    experimental: true,
  },
  'GET /employee/{employee_id}/unavailability/{unavailability_id}': {
    operationId: 'getEmployeeUnavailability',
    tag: 'Employee Unavailability',
    summary: 'Reads an employee unavailability',
    description: 'The unavailability with its version in `ETag`.',
    experimental: true,
  },
  'PUT /employee/{employee_id}/unavailability/{unavailability_id}': {
    operationId: 'upsertEmployeeUnavailability',
    tag: 'Employee Unavailability',
    summary: 'Creates or replaces an employee unavailability',
    description: `Creates the unavailability with the caller's id (201) or replaces it (200). ${IF_MATCH}`,
    experimental: true,
  },
  'DELETE /employee/{employee_id}/unavailability/{unavailability_id}': {
    operationId: 'deleteEmployeeUnavailability',
    tag: 'Employee Unavailability',
    summary: 'Deletes an employee unavailability',
    description: `Deletes the unavailability. ${IF_MATCH}`,
    experimental: true,
  },

  'GET /transport-resource': {
    operationId: 'getPagedTransportResources',
    tag: 'Transport Resource',
    summary: 'Lists transport resources',
    description: `The transport resources of the caller's tenant in a stable order. ${PAGING}`,
  },
  'GET /transport-resource/{transport_resource_id}': {
    operationId: 'getTransportResource',
    tag: 'Transport Resource',
    summary: 'Reads a transport resource',
    description: 'The transport resource with its version in `ETag`.',
  },
  'PUT /transport-resource/{transport_resource_id}': {
    operationId: 'upsertTransportResource',
    tag: 'Transport Resource',
    summary: 'Creates or replaces a transport resource',
    description:
      'Creates the transport resource (201) or replaces it (200); the matching engine pairs it with available employees. ' +
      `The home base it names must exist. ${IF_MATCH}`,
  },
  'DELETE /transport-resource/{transport_resource_id}': {
    operationId: 'deleteTransportResource',
    tag: 'Transport Resource',
    summary: 'Deletes a transport resource',
    description:
      'Deletes the transport resource, its unavailabilities and external deployments; its combinations are removed and ' +
      `replacements sought. ${IF_MATCH}`,
  },

  'GET /transport-resource/{transport_resource_id}/unavailability': {
    operationId: 'getTransportResourceUnavailabilities',
    tag: 'Transport Resource Unavailability',
    summary: "Lists a transport resource's unavailabilities",
    description: `The transport resource's unavailabilities, each with its version. ${TIME_RANGE}`,
    experimental: true,
  },
  'POST /transport-resource/{transport_resource_id}/unavailability': {
    operationId: 'addTransportResourceUnavailability',
    tag: 'Transport Resource Unavailability',
    summary: 'Adds a transport resource unavailability',
    description: 'Creates an unavailability with a generated id, given in `Location`: for ad hoc entries or source systems without ids.',
    experimental: true,
  },
  'GET /transport-resource/{transport_resource_id}/unavailability/{unavailability_id}': {
    operationId: 'getTransportResourceUnavailability',
    tag: 'Transport Resource Unavailability',
    summary: 'Reads a transport resource unavailability',
    description: 'The unavailability with its version in `ETag`.',
    experimental: true,
  },
  'PUT /transport-resource/{transport_resource_id}/unavailability/{unavailability_id}': {
    operationId: 'upsertTransportResourceUnavailability',
    tag: 'Transport Resource Unavailability',
    summary: 'Creates or replaces a transport resource unavailability',
    description: `Creates the unavailability with the caller's id (201) or replaces it (200). ${IF_MATCH}`,
    experimental: true,
  },
  'DELETE /transport-resource/{transport_resource_id}/unavailability/{unavailability_id}': {
    operationId: 'deleteTransportResourceUnavailability',
    tag: 'Transport Resource Unavailability',
    summary: 'Deletes a transport resource unavailability',
    description: `Deletes the unavailability. ${IF_MATCH}`,
    experimental: true,
  },

  'GET /home-base': {
    operationId: 'getPagedHomeBases',
    tag: 'Home Base',
    summary: 'Lists home bases',
    description: `The home bases of the caller's tenant in a stable order. ${PAGING}`,
  },
  'GET /home-base/{home_base_id}': {
    operationId: 'getHomeBase',
    tag: 'Home Base',
    summary: 'Reads a home base',
    description: 'The home base with its version in `ETag`.',
    experimental: true,
  },
  'PUT /home-base/{home_base_id}': {
    operationId: 'upsertHomeBase',
    tag: 'Home Base',
    summary: 'Creates or replaces a home base',
    description: `Creates the home base (201) or replaces it (200); a change reaches everything that refers to it. ${IF_MATCH}`,
    experimental: true,
  },
  'DELETE /home-base/{home_base_id}': {
    operationId: 'deleteHomeBase',
    tag: 'Home Base',
    summary: 'Deletes a home base',
    description: `Deletes the home base, only while nothing refers to it (409 naming the referrers otherwise). ${IF_MATCH}`,
    experimental: true,
  },

  'GET /resource-overview/{date}/{location}/forecasts': {
    operationId: 'getForecast',
    tag: 'Forecast',
    summary: 'Reads a forecast',
    description: 'The number of shifts expected on the day at the location.',
    experimental: true,
  },
  'PUT /resource-overview/{date}/{location}/forecasts': {
    operationId: 'upsertForecast',
    tag: 'Forecast',
    summary: 'Sets a forecast',
    description: `Sets the number of shifts expected on the day at the location (201 if new, 200 otherwise). ${IF_MATCH}`,
    experimental: true,
  },
  'DELETE /resource-overview/{date}/{location}/forecasts': {
    operationId: 'deleteForecast',
    tag: 'Forecast',
    summary: 'Deletes a forecast',
    description: `Deletes the forecast of the day at the location. ${IF_MATCH}`,
    experimental: true,
  },

  'GET /deployment': {
    operationId: 'getPagedDeployments',
    tag: 'Deployment',
    summary: 'Lists deployments',
    description: `External and planning-bound deployments of the caller's tenant in a stable order. ${PAGING}`,
    experimental: true,
  },
  'GET /deployment/{id}': {
    operationId: 'getDeployment',
    tag: 'Deployment',
    summary: 'Reads a deployment',
    description: 'The deployment with its version in `ETag`.',
    experimental: true,
  },
  'PUT /deployment/{id}': {
    operationId: 'upsertExternalDeployment',
    tag: 'Deployment',
    summary: 'Creates or replaces an external deployment',
    description:
      'Creates (201) or replaces (200) an external deployment. It must not overlap another deployment of its employee or ' +
      `transport resources (409 naming it), nor be a released route's (409). ${IF_MATCH}`,
    experimental: true,
  },
  'DELETE /deployment/{id}': {
    operationId: 'deleteExternalDeployment',
    tag: 'Deployment',
    summary: 'Deletes an external deployment',
    description: `Deletes an external deployment; a released route's is removed only by unreleasing the route (409). ${IF_MATCH}`,
    experimental: true,
  },

  'GET /means/{employee_id}/actual': {
    operationId: 'getPagedEmployeeActuals',
    tag: 'Actual',
    summary: "Lists an employee's actuals",
    description: `The employee's actuals in a stable order. ${PAGING}`,
  },
  'PUT /means/{employee_id}/actual/{actual_id}': {
    operationId: 'upsertActual',
    tag: 'Actual',
    summary: 'Creates or replaces an actual',
    description: `Records the worked hours of a completed shift (201 if new, 200 otherwise); it must not end in the future. ${IF_MATCH}`,
    experimental: true,
  },
  'GET /means/{employee_id}/actual/{actual_id}': {
    operationId: 'getActual',
    tag: 'Actual',
    summary: 'Reads an actual',
    description: 'The actual with its version in `ETag`.',
    experimental: true,
  },
  'DELETE /means/{employee_id}/actual/{actual_id}': {
    operationId: 'deleteActual',
    tag: 'Actual',
    summary: 'Deletes an actual',
    description: `Deletes the actual. ${IF_MATCH}`,
    experimental: true,
  },

  'GET /resource-combination': {
    operationId: 'getPagedResourceCombinations',
    tag: 'Resource Combination',
    summary: 'Lists resource combinations',
    description: `The current combinations in a stable order, narrowed by employee, transport resource or time range. ${PAGING}`,
    experimental: true,
  },
  'GET /resource-combination/{id}': {
    operationId: 'getResourceCombination',
    tag: 'Resource Combination',
    summary: 'Reads a resource combination',
    description: 'The combination with its version in `ETag`.',
    experimental: true,
  },
  'GET /available-employee': {
    operationId: 'getPagedAvailableEmployees',
    tag: 'Available Employee',
    summary: 'Lists available employees',
    description: `The current snapshots in a stable order, narrowed by employee or time range. ${PAGING}`,
    experimental: true,
  },
  'GET /available-employee/{id}': {
    operationId: 'getAvailableEmployee',
    tag: 'Available Employee',
    summary: 'Reads an available employee',
    description: 'The snapshot with its version in `ETag`.',
    experimental: true,
  },
  'GET /available-employee/{id}/candidates': {
    operationId: 'getAvailableEmployeeCandidates',
    tag: 'Available Employee',
    summary: 'Tells why a shift is or is not combined',
    description:
      "Ours: the transport resources where the shift starts (on a journey, those it continues with), the one it is combined " +
      'with first, each with every reason the matching engine would not pair them: `location`, `inactive`, `trailer`, ' +
      '`requirements` and `required-capabilities` (with what the driver skills lack), `no-guaranteed-time`, ' +
      '`employee-unavailable` and `resource-unavailable` (with the periods), and `taken` (with the combination that holds it).',
    experimental: true,
  },

  'GET /webhook-subscription': {
    operationId: 'getPagedWebhookSubscriptions',
    tag: 'Webhook Subscription',
    summary: 'Lists webhook subscriptions',
    description: `The tenant's subscriptions in id order, without their secrets. ${PAGING}`,
    experimental: true,
  },
  'PUT /webhook-subscription/{webhook_subscription_id}': {
    operationId: 'upsertWebhookSubscription',
    tag: 'Webhook Subscription',
    summary: 'Creates or replaces a webhook subscription',
    description:
      'Creates the subscription (201, with its signing secret: the only answer that shows it) or replaces its URL, types, ' +
      'description and enabled flag (200; the secret stays). Setting `enabled` to true again re-enables one that was ' +
      `disabled for failing. At most 50 per tenant. ${IF_MATCH}`,
    experimental: true,
  },
  'GET /webhook-subscription/{webhook_subscription_id}': {
    operationId: 'getWebhookSubscription',
    tag: 'Webhook Subscription',
    summary: 'Reads a webhook subscription',
    description: 'The subscription with its version in `ETag`, without its secret; `disabled_reason` says why the service disabled it.',
    experimental: true,
  },
  'DELETE /webhook-subscription/{webhook_subscription_id}': {
    operationId: 'deleteWebhookSubscription',
    tag: 'Webhook Subscription',
    summary: 'Deletes a webhook subscription',
    description: `Deletes the subscription; what it had still to deliver is dropped. ${IF_MATCH}`,
    experimental: true,
  },
  'GET /webhook-subscription/{webhook_subscription_id}/deliveries': {
    operationId: 'getWebhookDeliveries',
    tag: 'Webhook Subscription',
    summary: "Lists a subscription's recent delivery attempts",
    description: 'The last 100 attempts, newest first: each with its `webhook-id`, outcome, status or error, duration and the next attempt planned.',
    experimental: true,
  },
  'POST /import': {
    operationId: 'importWrites',
    tag: 'Bulk Load',
    summary: 'Applies many writes in one request',
    description:
      'An `application/x-ndjson` body of writes, one ImportLine per line. Each applies as a single call would (the same ' +
      'rules, events and quotas); lines naming the same resource (the first two segments of the path, like ' +
      '`/employee/emp-1042`) apply in order, the rest side by side. The answer streams one ImportOutcome per line, in input ' +
      'order. The lines count against the tenant\'s request rate, waiting for it rather than refused. A tenant runs one ' +
      'import at a time per gateway replica (429 otherwise). Send POST lines with an ' +
      '`idempotency-key`, so that an import cut off may be sent again whole.',
    experimental: true,
  },
  'GET /changes': {
    operationId: 'getChanges',
    tag: 'Change Feed',
    summary: 'Follows every change of the tenant',
    description:
      'Streams each create, update and delete of the tenant as it happens, in order per resource, from now or from a ' +
      'position (`Last-Event-ID` or `after`). A position older than what is kept answers 410. Each connection counts once ' +
      'against the request rate; a tenant keeps at most 100 feeds open per gateway replica (429 beyond).',
    experimental: true,
  },
};
