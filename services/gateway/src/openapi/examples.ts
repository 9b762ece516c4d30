/**
 * Hand-written examples of every operation of the API document, from one road haulier, that agree with each other.
 * test/api-examples.test.ts checks them against the served schemas and sends every request example to the live API.
 */

/** Examples of one operation, as the API document shows them. */
export interface OperationExamples {
  /** Path parameters by name (every path parameter of the operation). */
  parameters?: Record<string, string>;
  /** Query parameters by name, for reads that need some (a range). */
  query?: Record<string, string>;
  /** The JSON request body, for operations that take one. */
  request?: unknown;
  /** 2xx response bodies by status ('200', '201'). */
  responses?: Partial<Record<'200' | '201', unknown>>;
}

const HOME_BASE_ID = 'depot-tilburg';
const EMPLOYEE_ID = 'emp-1042';
const TRANSPORT_RESOURCE_ID = 'truck-0412';
const DEPLOYMENT_ID = 'rit-20261208-0412';
const ACTUAL_ID = 'uren-20260105-1042';
const FORECAST_DATE = '2026-12-07';

// Generated ids are UUIDv7: their first 48 bits are the moment the service created them.
const SHIFT_SCHEDULE_ID = '019b7e15-3379-7efd-8bbd-08fa04ceb547';
const AVAILABILITY_ID = '01a20776-f0be-7e24-89ff-1aae8c6ae4b2';
const EMPLOYEE_UNAVAILABILITY_ID = '01a20da9-a5f2-7f7f-ba36-1c557a3a81b2';
const TRANSPORT_RESOURCE_UNAVAILABILITY_ID = '01a211ad-238b-75ae-907b-b4e660fa4f9d';

/** Opaque to callers: they only pass it back as `cursor`. */
const CURSOR = 'nPN9GWNPLBqMq041P5ec2wOcLQ3Wjpi2uq8M82n7shAKNcAd9PXKZQ.XwwVLhogfEuYkqWCvJ5-V_gxbpwZyEhuZH-N6lBpoRI';

/** One page of a list, the last: no `next`. */
const page = (list: string, items: unknown[]) => ({ [list]: items, cursors: { self: CURSOR } });

/** What an upsert or update answers when the resource was there already: one version on. */
const replaced = <Resource extends { version: number }>(resource: Resource): Resource => ({ ...resource, version: resource.version + 1 });

const HOME_BASE_REF = { business_id: HOME_BASE_ID };

const HOME_BASE_REQUEST = {
  name: 'Depot Tilburg',
  address: {
    name: 'Depot Tilburg',
    address_line: 'Kraaivenstraat 21',
    city: 'Tilburg',
    zip_code: '5048 AB',
    country_code: 'NL',
    geo_point: { latitude: 51.5783, longitude: 5.1106 },
  },
  plan_group: 'Zuid-Nederland',
};
const HOME_BASE = { business_id: HOME_BASE_ID, ...HOME_BASE_REQUEST, version: 1 };

const EMPLOYEE_REQUEST = {
  name: { first_name: 'Sanne', last_name: 'van den Berg' },
  driver_skills: ['C', 'CE', 'ADR', 'code95'],
  skills: ['nl', 'de'],
  home_base: HOME_BASE_REF,
  linked_transport_resource: TRANSPORT_RESOURCE_ID,
  labels: ['vaste-kracht'],
  costs: { fixed: 35, per_hour: 38.5 },
  route_settings: { driving_speed_factor: 0.9, max_stops_per_shift: 12 },
};
const EMPLOYEE = { business_id: EMPLOYEE_ID, ...EMPLOYEE_REQUEST, version: 1 };

const TRANSPORT_RESOURCE_REQUEST = {
  type: 'TRUCK',
  license_plate: '12-BXL-3',
  reference: 'Bakwagen 18 t koel',
  labels: ['euro6'],
  requirements: ['C'],
  required_capabilities: ['code95'],
  capabilities: ['koeling', 'laadklep'],
  // ADR loads only with a driver who has ADR
  skilled_capabilities: ['ADR'],
  cant_do: ['bulk'],
  capacities: [
    { type: 'pallets', value: 18 },
    { type: 'weight', value: 9500 },
    { type: 'loading_meters', value: 7.2 },
  ],
  home_base: HOME_BASE_REF,
  inactive: false,
  costs: { fixed: 95, per_km: 0.3125 },
  route_settings: { direct_trips: false },
  custom_data: { fleet_number: 412, tachograph: 'smart-v2' },
};
const TRANSPORT_RESOURCE = { business_id: TRANSPORT_RESOURCE_ID, ...TRANSPORT_RESOURCE_REQUEST, version: 1 };

/** One week of the rotation, Monday to Friday: each shift starts within an hour of `earliest`, lasts 6 to 9 hours and ends by `latestStop`. */
const weekdayShifts = (earliest: string, latestStop: string) =>
  (['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const).map((day) => ({
    start: { earliest: { time: earliest, day }, window: 'PT1H' },
    stop: { latest: { time: latestStop, day } },
    duration: { at_least: 'PT6H', at_most: 'PT9H' },
  }));

const SHIFT_SCHEDULE_REQUEST = {
  name: 'Wisseldienst vroeg/laat',
  start: { start_date: '2026-01-05', start_week: 1 },
  templates: [
    { index: 1, shifts: weekdayShifts('06:00', '15:30') },
    { index: 2, shifts: weekdayShifts('14:00', '23:30') },
  ],
};
/** POST and PUT answer without `version` (spec: shift schedule rule 5). */
const WRITTEN_SHIFT_SCHEDULE = { id: SHIFT_SCHEDULE_ID, employee_id: EMPLOYEE_ID, ...SHIFT_SCHEDULE_REQUEST };
const SHIFT_SCHEDULE = { ...WRITTEN_SHIFT_SCHEDULE, version: 1 };

// Monday 2026-12-07 falls in an early week of the rotation; the day ends in the port of Antwerp.
const AVAILABILITY_REQUEST = {
  start_location: { home_base: HOME_BASE_REF },
  end_location: {
    address: { name: 'Truckparking Antwerpen Haven', address_line: 'Scheldelaan 460', city: 'Antwerpen', zip_code: '2040', country_code: 'BE' },
  },
  earliest_start: '2026-12-07T06:00:00Z',
  latest_start: '2026-12-07T07:00:00Z',
  latest_stop: '2026-12-07T15:30:00Z',
  min_duration: 'PT6H',
  max_duration: 'PT9H',
  mandatory: true,
};
const AVAILABILITY = { id: AVAILABILITY_ID, employee_id: EMPLOYEE_ID, ...AVAILABILITY_REQUEST, version: 1 };

// The schedule's Monday of that week, read in UTC: the availability above starts when it does, so it covers it.
const EXPECTED_DAY = { from: '2026-12-07T00:00:00Z', until: '2026-12-08T00:00:00Z', time_zone: 'UTC' };
const EXPECTED_ORIGIN = { shift_schedule_id: SHIFT_SCHEDULE_ID, template_index: 1, shift_position: 0 };
const EXPECTED_SHIFT = {
  ...EXPECTED_ORIGIN,
  availability: {
    earliest_start: '2026-12-07T06:00:00Z',
    latest_start: '2026-12-07T07:00:00Z',
    latest_stop: '2026-12-07T15:30:00Z',
    min_duration: 'PT6H',
    max_duration: 'PT9H',
  },
  start_location: { home_base: HOME_BASE_REF },
  start_location_from: 'employee',
  covered_by: AVAILABILITY_ID,
};
const AVAILABILITY_GENERATION = {
  created: [],
  existing: [{ ...EXPECTED_ORIGIN, earliest_start: '2026-12-07T06:00:00Z', availability_id: AVAILABILITY_ID }],
  overlapping: [],
  refused: [],
};

const EMPLOYEE_UNAVAILABILITY_REQUEST = { from: '2026-12-24T00:00:00Z', to: '2026-12-28T00:00:00Z', description: 'Kerstverlof' };
const EMPLOYEE_UNAVAILABILITY = { id: EMPLOYEE_UNAVAILABILITY_ID, employee_id: EMPLOYEE_ID, ...EMPLOYEE_UNAVAILABILITY_REQUEST, version: 1 };

const TRANSPORT_RESOURCE_UNAVAILABILITY_REQUEST = { from: '2026-12-09T06:00:00Z', to: '2026-12-09T12:00:00Z', description: 'APK-keuring en onderhoud' };
const TRANSPORT_RESOURCE_UNAVAILABILITY = {
  id: TRANSPORT_RESOURCE_UNAVAILABILITY_ID,
  transport_resource_id: TRANSPORT_RESOURCE_ID,
  ...TRANSPORT_RESOURCE_UNAVAILABILITY_REQUEST,
  version: 1,
};

const WEBHOOK_SUBSCRIPTION_ID = 'tms-combinations';
const WEBHOOK_SUBSCRIPTION_REQUEST = {
  url: 'https://tms.haulier.example/hooks/resource-management',
  types: ['resource-combination.*', 'available-employee.*'],
  description: 'Planning board in the TMS',
};
const WEBHOOK_SUBSCRIPTION = { id: WEBHOOK_SUBSCRIPTION_ID, ...WEBHOOK_SUBSCRIPTION_REQUEST, enabled: true, version: 1 };
const WEBHOOK_DELIVERY = {
  webhook_id: '5b0e8f6a-3c1d-4e9a-8f27-6d4c2b1a0e93',
  event_type: 'resource-combination.created',
  entity_id: AVAILABILITY_ID,
  attempt: 2,
  attempted_at: '2026-12-07T04:12:14.512Z',
  outcome: 'delivered',
  status: 204,
  duration_ms: 87,
};

const FORECAST_REQUEST = { expected_shifts: 14, description: 'Decemberpiek: extra koelritten' };
const FORECAST = { date: FORECAST_DATE, location: HOME_BASE_ID, ...FORECAST_REQUEST, version: 1 };

/** The trip of Tuesday 2026-12-08, planned in the customer's own TMS. */
const DEPLOYMENT_SPAN = {
  start: { at: '2026-12-08T06:00:00Z', location: { home_base: HOME_BASE_REF } },
  end: { at: '2026-12-08T15:15:00Z' },
  total_break_time: 'PT45M',
};
const DEPLOYMENT_REQUEST = { employee: EMPLOYEE_ID, transport_resources: [TRANSPORT_RESOURCE_ID], ...DEPLOYMENT_SPAN };
const DEPLOYMENT = { id: DEPLOYMENT_ID, employee_id: EMPLOYEE_ID, transport_resource_ids: [TRANSPORT_RESOURCE_ID], ...DEPLOYMENT_SPAN, version: 1 };

/** The first early shift of the rotation, with a 45-minute break. */
const ACTUAL_REQUEST = { start: '2026-01-05T06:05:00Z', end: '2026-01-05T15:20:00Z', work_time: 'PT8H30M' };
const ACTUAL = { employee_id: EMPLOYEE_ID, business_id: ACTUAL_ID, ...ACTUAL_REQUEST, version: 1 };

// The matching engine answers instants with milliseconds.
const instant = (dateTime: string) => new Date(dateTime).toISOString();
const SHIFT = { start: instant(AVAILABILITY.earliest_start), end: instant(AVAILABILITY.latest_stop) };
/** From latest_start to earliest_start + min_duration (DESIGN §6). */
const GUARANTEED_WORKING_TIME = { start: instant(AVAILABILITY.latest_start), end: instant('2026-12-07T12:00:00Z') };

/** The snapshot of the availability: its employee's skills and costs, at the home base's address; the Christmas leave is later. */
const AVAILABLE_EMPLOYEE = {
  id: AVAILABILITY_ID,
  employee_id: EMPLOYEE_ID,
  shift: SHIFT,
  guaranteed_working_time: GUARANTEED_WORKING_TIME,
  location: { home_base_id: HOME_BASE_ID },
  mandatory: true,
  driver_skills: EMPLOYEE.driver_skills,
  skills: EMPLOYEE.skills,
  linked_transport_resource: TRANSPORT_RESOURCE_ID,
  costs: EMPLOYEE.costs,
  unavailabilities: [],
  address: HOME_BASE.address,
  version: 1,
};

/**
 * The availability paired with the employee's own truck. Capabilities: the truck's, its required
 * ones, ADR (a skilled capability the driver has) and the employee's skills, in code-point order.
 */
const RESOURCE_COMBINATION = {
  id: AVAILABILITY_ID,
  employee_id: EMPLOYEE_ID,
  transport_resource_ids: [TRANSPORT_RESOURCE_ID],
  shift: SHIFT,
  guaranteed_working_time: GUARANTEED_WORKING_TIME,
  mandatory: true,
  capabilities: ['ADR', 'code95', 'de', 'koeling', 'laadklep', 'nl'],
  linked: true,
  version: 1,
};

/** Why the availability drives its own truck: the one truck at the depot besides it needs a skill the driver lacks. */
const AVAILABLE_EMPLOYEE_CANDIDATES = {
  available_employee_id: AVAILABILITY_ID,
  employee_id: EMPLOYEE_ID,
  shift: SHIFT,
  guaranteed_working_time: GUARANTEED_WORKING_TIME,
  combined_with: [TRANSPORT_RESOURCE_ID],
  candidates: [
    { transport_resource_id: TRANSPORT_RESOURCE_ID, feasible: true, combined: true, reasons: [] },
    {
      transport_resource_id: 'truck-0388',
      feasible: false,
      combined: false,
      reasons: [{ code: 'requirements', message: "the employee's driver skills lack requirements of the transport resource", missing: ['LZV'] }],
    },
  ],
};

const employeePath = { employee_id: EMPLOYEE_ID };
const shiftSchedulePath = { ...employeePath, generated_id: SHIFT_SCHEDULE_ID };
const availabilityPath = { ...employeePath, generated_id: AVAILABILITY_ID };
const employeeUnavailabilityPath = { ...employeePath, unavailability_id: EMPLOYEE_UNAVAILABILITY_ID };
const transportResourcePath = { transport_resource_id: TRANSPORT_RESOURCE_ID };
const transportResourceUnavailabilityPath = { ...transportResourcePath, unavailability_id: TRANSPORT_RESOURCE_UNAVAILABILITY_ID };
const homeBasePath = { home_base_id: HOME_BASE_ID };
const forecastPath = { date: FORECAST_DATE, location: HOME_BASE_ID };
const deploymentPath = { id: DEPLOYMENT_ID };
const actualPath = { ...employeePath, actual_id: ACTUAL_ID };

/** A create or replace that answers 201 the first time and 200 after. */
const upsert = (parameters: Record<string, string>, request: unknown, stored: { version: number }): OperationExamples => ({
  parameters,
  request,
  responses: { '200': replaced(stored), '201': stored },
});

export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  ping: { responses: { '200': 'pong' } },

  getPagedEmployees: { responses: { '200': page('employees', [EMPLOYEE]) } },
  getEmployee: { parameters: employeePath, responses: { '200': EMPLOYEE } },
  upsertEmployee: upsert(employeePath, EMPLOYEE_REQUEST, EMPLOYEE),
  deleteEmployee: { parameters: employeePath },

  getShiftSchedulesByEmployeeId: { parameters: employeePath, responses: { '200': [SHIFT_SCHEDULE] } },
  addShiftSchedule: { parameters: employeePath, request: SHIFT_SCHEDULE_REQUEST, responses: { '201': WRITTEN_SHIFT_SCHEDULE } },
  getShiftSchedule: { parameters: shiftSchedulePath, responses: { '200': SHIFT_SCHEDULE } },
  updateShiftSchedule: { parameters: shiftSchedulePath, request: SHIFT_SCHEDULE_REQUEST, responses: { '201': WRITTEN_SHIFT_SCHEDULE } },
  deleteShiftSchedule: { parameters: shiftSchedulePath },

  getEmployeeAvailabilities: { parameters: employeePath, responses: { '200': [AVAILABILITY] } },
  addEmployeeAvailability: { parameters: employeePath, request: AVAILABILITY_REQUEST, responses: { '201': AVAILABILITY } },
  deleteEmployeeAvailabilities: { parameters: employeePath },
  getEmployeeAvailability: { parameters: availabilityPath, responses: { '200': AVAILABILITY } },
  updateEmployeeAvailability: { parameters: availabilityPath, request: AVAILABILITY_REQUEST, responses: { '200': replaced(AVAILABILITY) } },
  getExpectedAvailability: { parameters: employeePath, query: EXPECTED_DAY, responses: { '200': [EXPECTED_SHIFT] } },
  generateAvailabilities: { parameters: employeePath, request: EXPECTED_DAY, responses: { '200': AVAILABILITY_GENERATION } },
  generateTenantAvailabilities: { request: EXPECTED_DAY, responses: { '200': { employees: [{ employee_id: EMPLOYEE_ID, ...AVAILABILITY_GENERATION }] } } },
  deleteEmployeeAvailability: { parameters: availabilityPath },

  getEmployeeUnavailabilities: { parameters: employeePath, responses: { '200': [EMPLOYEE_UNAVAILABILITY] } },
  addEmployeeUnavailability: { parameters: employeePath, request: EMPLOYEE_UNAVAILABILITY_REQUEST, responses: { '201': EMPLOYEE_UNAVAILABILITY } },
  getEmployeeUnavailability: { parameters: employeeUnavailabilityPath, responses: { '200': EMPLOYEE_UNAVAILABILITY } },
  upsertEmployeeUnavailability: upsert(employeeUnavailabilityPath, EMPLOYEE_UNAVAILABILITY_REQUEST, EMPLOYEE_UNAVAILABILITY),
  deleteEmployeeUnavailability: { parameters: employeeUnavailabilityPath },

  getPagedTransportResources: { responses: { '200': page('transport_resources', [TRANSPORT_RESOURCE]) } },
  getTransportResource: { parameters: transportResourcePath, responses: { '200': TRANSPORT_RESOURCE } },
  upsertTransportResource: upsert(transportResourcePath, TRANSPORT_RESOURCE_REQUEST, TRANSPORT_RESOURCE),
  deleteTransportResource: { parameters: transportResourcePath },

  getTransportResourceUnavailabilities: { parameters: transportResourcePath, responses: { '200': [TRANSPORT_RESOURCE_UNAVAILABILITY] } },
  addTransportResourceUnavailability: {
    parameters: transportResourcePath,
    request: TRANSPORT_RESOURCE_UNAVAILABILITY_REQUEST,
    responses: { '201': TRANSPORT_RESOURCE_UNAVAILABILITY },
  },
  getTransportResourceUnavailability: { parameters: transportResourceUnavailabilityPath, responses: { '200': TRANSPORT_RESOURCE_UNAVAILABILITY } },
  upsertTransportResourceUnavailability: upsert(
    transportResourceUnavailabilityPath,
    TRANSPORT_RESOURCE_UNAVAILABILITY_REQUEST,
    TRANSPORT_RESOURCE_UNAVAILABILITY,
  ),
  deleteTransportResourceUnavailability: { parameters: transportResourceUnavailabilityPath },

  getPagedHomeBases: { responses: { '200': page('home_bases', [HOME_BASE]) } },
  getHomeBase: { parameters: homeBasePath, responses: { '200': HOME_BASE } },
  upsertHomeBase: upsert(homeBasePath, HOME_BASE_REQUEST, HOME_BASE),
  deleteHomeBase: { parameters: homeBasePath },

  getPagedWebhookSubscriptions: { responses: { '200': page('webhook_subscriptions', [WEBHOOK_SUBSCRIPTION]) } },
  getWebhookSubscription: { parameters: { webhook_subscription_id: WEBHOOK_SUBSCRIPTION_ID }, responses: { '200': WEBHOOK_SUBSCRIPTION } },
  upsertWebhookSubscription: {
    parameters: { webhook_subscription_id: WEBHOOK_SUBSCRIPTION_ID },
    request: WEBHOOK_SUBSCRIPTION_REQUEST,
    // the only answer that shows the secret: its value is the subscription's own
    responses: { '200': replaced(WEBHOOK_SUBSCRIPTION), '201': { ...WEBHOOK_SUBSCRIPTION, secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD3nN9xlrY1nM=' } },
  },
  deleteWebhookSubscription: { parameters: { webhook_subscription_id: WEBHOOK_SUBSCRIPTION_ID } },
  getWebhookDeliveries: { parameters: { webhook_subscription_id: WEBHOOK_SUBSCRIPTION_ID }, responses: { '200': { deliveries: [WEBHOOK_DELIVERY] } } },

  getForecast: { parameters: forecastPath, responses: { '200': FORECAST } },
  upsertForecast: upsert(forecastPath, FORECAST_REQUEST, FORECAST),
  deleteForecast: { parameters: forecastPath },

  getPagedDeployments: { responses: { '200': page('deployments', [DEPLOYMENT]) } },
  getDeployment: { parameters: deploymentPath, responses: { '200': DEPLOYMENT } },
  upsertExternalDeployment: upsert(deploymentPath, DEPLOYMENT_REQUEST, DEPLOYMENT),
  deleteExternalDeployment: { parameters: deploymentPath },

  getPagedEmployeeActuals: { parameters: employeePath, responses: { '200': page('actuals', [{ ...ACTUAL, etag: `W/"${ACTUAL.version}"` }]) } },
  upsertActual: upsert(actualPath, ACTUAL_REQUEST, ACTUAL),
  getActual: { parameters: actualPath, responses: { '200': ACTUAL } },
  deleteActual: { parameters: actualPath },

  getPagedResourceCombinations: { responses: { '200': page('resource_combinations', [RESOURCE_COMBINATION]) } },
  getResourceCombination: { parameters: { id: AVAILABILITY_ID }, responses: { '200': RESOURCE_COMBINATION } },

  getPagedAvailableEmployees: { responses: { '200': page('available_employees', [AVAILABLE_EMPLOYEE]) } },
  getAvailableEmployee: { parameters: { id: AVAILABILITY_ID }, responses: { '200': AVAILABLE_EMPLOYEE } },
  getAvailableEmployeeCandidates: { parameters: { id: AVAILABILITY_ID }, responses: { '200': AVAILABLE_EMPLOYEE_CANDIDATES } },
};
