import { locationViolations, normalizeLocation, roundCosts, type EmployeeFields, type FieldsDecision } from '@rm/contracts';

/** A request body that passed the schema: the stored fields plus read-only ones sent back from a GET. */
export type EmployeeInput = EmployeeFields & { business_id?: unknown; version?: unknown };

/**
 * The rules of an employee that its schema cannot say, and its stored form: read-only fields dropped,
 * costs rounded, resolved geo information left to the resolver.
 */
export function decideEmployee(input: EmployeeInput): FieldsDecision<EmployeeFields> {
  const violations = locationViolations(input);
  if (violations.length > 0) return { ok: false, violations };
  const { business_id: _businessId, version: _version, ...fields } = input;
  const employee = normalizeLocation(fields);
  return { ok: true, fields: employee.costs ? { ...employee, costs: roundCosts(employee.costs) } : employee };
}
