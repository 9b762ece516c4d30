import {
  CUSTOM_DATA_MAX_BYTES,
  locationViolations,
  normalizeLocation,
  roundCosts,
  type Capacity,
  type FieldsDecision,
  type TransportResourceFields,
  type TransportResourceInput,
  type Violation,
} from '@rm/contracts';

/** Levels of objects and arrays custom_data may nest: deeper JSON would exhaust the stack of JSON.stringify. */
export const CUSTOM_DATA_MAX_DEPTH = 64;

/**
 * The rules of a transport resource that its schema cannot say, and its stored form: read-only fields
 * dropped, capacity types and `inactive` filled in with their defaults, costs rounded, resolved geo
 * information left to the resolver; custom_data kept exactly as given.
 */
export function decideTransportResource(input: TransportResourceInput): FieldsDecision<TransportResourceFields> {
  const violations = [...locationViolations(input), ...capacityViolations(input.capacities ?? []), ...customDataViolations(input.custom_data)];
  if (violations.length > 0) return { ok: false, violations };
  const { business_id: _businessId, version: _version, capacities, costs, inactive = false, ...fields } = normalizeLocation(input);
  return {
    ok: true,
    fields: {
      ...fields,
      ...(capacities === undefined ? {} : { capacities: capacities.map(({ type = 'volume', value }) => ({ type, value })) }),
      ...(costs === undefined ? {} : { costs: roundCosts(costs) }),
      inactive,
    },
  };
}

/** Each capacity type at most once; a capacity without a type is `volume` (field reference). */
function capacityViolations(capacities: readonly Capacity[]): Violation[] {
  const firstOf = new Map<string, number>();
  return capacities.flatMap(({ type = 'volume' }, index): Violation[] => {
    const first = firstOf.get(type);
    if (first === undefined) {
      firstOf.set(type, index);
      return [];
    }
    return [{ field: `capacities[${index}].type`, message: `must not repeat capacity type ${type} of capacities[${first}]` }];
  });
}

function customDataViolations(customData: Record<string, unknown> | undefined): Violation[] {
  if (customData === undefined) return [];
  if (nestingDepth(customData) > CUSTOM_DATA_MAX_DEPTH) {
    return [{ field: 'custom_data', message: `must not nest objects and arrays more than ${CUSTOM_DATA_MAX_DEPTH} levels deep` }];
  }
  const bytes = Buffer.byteLength(JSON.stringify(customData));
  if (bytes > CUSTOM_DATA_MAX_BYTES) {
    return [{ field: 'custom_data', message: `must be at most 16 KiB (${CUSTOM_DATA_MAX_BYTES} bytes) as JSON; it is ${bytes} bytes` }];
  }
  return [];
}

/** Levels of objects and arrays in a JSON value, counted without recursion (so any depth is safe to measure). */
function nestingDepth(root: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > CUSTOM_DATA_MAX_DEPTH) return deepest;
    for (const item of Object.values(value)) pending.push([item, depth + 1]);
  }
  return deepest;
}
