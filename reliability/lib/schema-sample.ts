// Valid values from the JSON Schemas of the OpenAPI document (the subset our contracts use), from a
// seeded random source so that a run can be repeated.

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
}

export interface Random {
  /** An integer from min to max, both included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  id(length?: number): string;
  uuid(): string;
}

/** mulberry32: small, fast and good enough to pick test cases. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const random: Random = {
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (probability) => next() < probability,
    id: (length = 10) => Array.from({ length }, () => random.pick(ID_CHARACTERS)).join(''),
    uuid: () => {
      const hex = Array.from({ length: 32 }, () => random.pick(HEX)).join('');
      const variant = random.pick(['8', '9', 'a', 'b']);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
    },
  };
  return random;
}

const ID_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
const HEX = [...'0123456789abcdef'];
const DURATIONS = ['PT8H', 'PT4H', 'PT1H30M', 'PT6H', 'PT10H'];
const HOUR = 3_600_000;

/** Candidates for a `pattern`: the first that matches is used. */
const PATTERN_CANDIDATES = (random: Random): string[] => [
  `rel-${random.id(6)}`,
  random.pick(['NL', 'DE', 'BE', 'FR']),
  `${String(random.int(0, 23)).padStart(2, '0')}:${random.pick(['00', '15', '30', '45'])}`,
  random.pick(['MONDAY', 'TUESDAY', 'FRIDAY']),
  String(random.int(1, 99)),
];

/** Properties the document marks read-only (ignored in requests) are left out. */
export function isReadOnly(schema: Schema): boolean {
  return schema.description?.startsWith('read-only') === true;
}

/**
 * A value the schema accepts. Date-times within one value increase, so that ranges (`from`/`to`,
 * `earliest_start`/`latest_stop`) usually come out in order; they lie in the past few weeks, as
 * actuals require.
 */
export function sampleValue(schema: Schema, random: Random): unknown {
  let clock = Date.now() - random.int(3, 40) * 24 * HOUR - random.int(0, 23) * HOUR;
  clock -= clock % HOUR;
  const nextInstant = () => {
    clock += random.int(1, 3) * HOUR;
    return new Date(clock).toISOString().replace('.000Z', 'Z');
  };

  const sample = (node: Schema, depth: number): unknown => {
    if (node.const !== undefined) return node.const;
    if (node.enum !== undefined) return random.pick(node.enum);
    const branches = node.anyOf ?? node.oneOf;
    if (branches !== undefined) return sample(random.pick(branches.filter((branch) => !isNullSchema(branch))), depth);
    if (node.allOf !== undefined) return sample(Object.assign({}, ...node.allOf) as Schema, depth);
    const type = Array.isArray(node.type) ? random.pick(node.type.filter((each) => each !== 'null')) : node.type;
    switch (type ?? (node.properties === undefined ? undefined : 'object')) {
      case 'object': {
        const required = new Set(node.required ?? []);
        const entries = Object.entries(node.properties ?? {}).filter(
          ([name, property]) => !isReadOnly(property) && (required.has(name) || random.chance(depth === 0 ? 0.5 : 0.3)),
        );
        return Object.fromEntries(entries.map(([name, property]) => [name, sample(property, depth + 1)]));
      }
      case 'array': {
        const length = random.int(node.minItems ?? 0, Math.min(node.maxItems ?? 3, Math.max(node.minItems ?? 0, 3)));
        const items = Array.from({ length }, () => sample(node.items ?? {}, depth + 1));
        return node.uniqueItems === true ? [...new Map(items.map((item) => [JSON.stringify(item), item])).values()] : items;
      }
      case 'string':
        return sampleString(node, random, nextInstant);
      case 'integer':
        return random.int(Math.ceil(node.minimum ?? 0), Math.floor(Math.min(node.maximum ?? 100, (node.minimum ?? 0) + 100)));
      case 'number':
        return Math.round(random.int((node.minimum ?? 0) * 100, Math.min(node.maximum ?? 100, (node.minimum ?? 0) + 100) * 100)) / 100;
      case 'boolean':
        return random.chance(0.5);
      default:
        return random.id(4);
    }
  };
  return sample(schema, 0);
}

function sampleString(node: Schema, random: Random, nextInstant: () => string): string {
  switch (node.format) {
    case 'date-time':
      return nextInstant();
    case 'date':
      return nextInstant().slice(0, 10);
    case 'uuid':
      return random.uuid();
    case 'duration':
      return random.pick(DURATIONS);
  }
  if (node.pattern !== undefined) {
    const pattern = new RegExp(node.pattern);
    return PATTERN_CANDIDATES(random).find((candidate) => pattern.test(candidate)) ?? random.id(node.minLength ?? 4);
  }
  const length = random.int(Math.max(node.minLength ?? 1, 1), Math.max(Math.min(node.maxLength ?? 12, 12), node.minLength ?? 1));
  return random.id(length);
}

function isNullSchema(schema: Schema): boolean {
  return schema.type === 'null';
}
