// The README's quick start, run by test/client.test.ts against the whole stack.
import { ApiError, type ApiClient } from '../src/index.js';

/** A home base, a driver at it and an availability; a conditional update, every employee, and a refused write. */
export async function quickStart(rm: ApiClient): Promise<{ availabilityUrl: string | undefined; employees: string[]; violations: string[] }> {
  await rm.upsertHomeBase('depot-tilburg', {
    name: 'Depot Tilburg',
    address: { name: 'Depot Tilburg', city: 'Tilburg', zip_code: '5048 AB', country_code: 'NL' },
  });
  await rm.upsertEmployee('emp-1042', { name: { first_name: 'Sanne', last_name: 'van den Berg' }, home_base: { business_id: 'depot-tilburg' } });

  // path parameters first, in the path's order, then the body, then options
  const created = await rm.addEmployeeAvailability('emp-1042', { earliest_start: '2026-12-07T06:00:00Z', max_duration: 'PT9H' });

  // optimistic locking: the ETag of a write or read (or its version number) as If-Match
  const { data: employee, etag } = await rm.getEmployee('emp-1042');
  await rm.upsertEmployee('emp-1042', { ...employee, labels: ['night shifts'] }, { ifMatch: etag });

  // every employee, page after page
  const employees: string[] = [];
  for await (const employee of rm.each.getPagedEmployees({ query: { limit: 500 } })) employees.push(employee.business_id);

  // a refusal is an ApiError with the problem: a 400 names each broken rule
  const violations: string[] = [];
  try {
    await rm.addEmployeeAvailability('emp-1042', { earliest_start: 'next monday', max_duration: 'PT9H' });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    violations.push(...(error.problem?.violations ?? []).map(({ field }) => field));
  }
  return { availabilityUrl: created.location, employees, violations };
}
