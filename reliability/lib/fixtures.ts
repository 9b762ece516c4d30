// Valid bodies of every resource kind (spec/field-reference.md), for scenarios that need real data; typed
// by the API document (the typed client's RequestBody), so that a change of the contract breaks the build.
import type { RequestBody } from '@rm/client';

const HOUR = 3_600_000;
const location = (name: string) => ({ name, geo_point: { latitude: 52.09, longitude: 5.12 } });

/** An instant `hours` after a fixed Monday in the past, as the API writes it. */
export function at(hours: number, base = Date.UTC(2026, 0, 5)): string {
  return new Date(base + hours * HOUR).toISOString().replace('.000Z', 'Z');
}

export const bodies = {
  employee: (firstName = 'Ada'): RequestBody<'upsertEmployee'> => ({
    name: { first_name: firstName, last_name: 'Lovelace' },
    start_location: location('Depot'),
  }),
  transportResource: (reference = 'truck'): RequestBody<'upsertTransportResource'> => ({ type: 'TRUCK', reference, start_location: location('Depot') }),
  homeBase: (name = 'Base'): RequestBody<'upsertHomeBase'> => ({ name, address: location(name) }),
  availability: (startHour: number, hours = 8): RequestBody<'addEmployeeAvailability'> => ({ earliest_start: at(startHour), max_duration: `PT${hours}H` }),
  unavailability: (fromHour: number, toHour: number): RequestBody<'addEmployeeUnavailability'> => ({ from: at(fromHour), to: at(toHour), description: 'Dentist' }),
  shiftSchedule: (): RequestBody<'addShiftSchedule'> => ({
    name: 'Early',
    start: { start_date: '2026-01-05', start_week: 1 },
    templates: [{ index: 1, shifts: [{ start: { earliest: { time: '06:00', day: 'MONDAY' } }, duration: { at_most: 'PT8H' } }] }],
  }),
  forecast: (expectedShifts = 3): RequestBody<'upsertForecast'> => ({ expected_shifts: expectedShifts, description: 'Peak' }),
  actual: (startHour: number): RequestBody<'upsertActual'> => ({ start: at(startHour), end: at(startHour + 8), work_time: 'PT7H30M' }),
  deployment: (employee: string, transportResources: string[], startHour: number, hours = 8): RequestBody<'upsertExternalDeployment'> => ({
    employee,
    transport_resources: transportResources,
    start: { at: at(startHour), location: { address: { name: 'Depot' } } },
    end: { at: at(startHour + hours) },
  }),
  // nothing listens on the discard port: deliveries to it fail at once (a local stack runs WEBHOOK_TARGETS=any)
  webhookSubscription: (url = 'http://127.0.0.1:9/hooks'): RequestBody<'upsertWebhookSubscription'> => ({ url, types: ['employee.*'] }),
};
