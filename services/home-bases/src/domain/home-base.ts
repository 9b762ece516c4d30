import { addressViolations, withoutResolved, type FieldsDecision, type HomeBaseFields, type HomeBaseInput } from '@rm/contracts';

/**
 * The rules of a home base that its schema cannot say (its address holds address information or a
 * geo point, with a real country), and its stored form: read-only fields dropped, resolved geo
 * information left to the resolver.
 */
export function decideHomeBase(input: HomeBaseInput): FieldsDecision<HomeBaseFields> {
  const violations = addressViolations(input.address, 'address');
  if (violations.length > 0) return { ok: false, violations };
  const { business_id: _businessId, version: _version, ...fields } = input;
  return { ok: true, fields: { ...fields, address: withoutResolved(fields.address) } };
}
