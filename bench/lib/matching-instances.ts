// Generated matching tenants for the quality bench: home bases and ad-hoc places, employees with driver
// skills (some with a linked transport resource), trucks, tractors and trailers with requirements and
// costs (some inactive), two weeks of availabilities, unavailabilities on both sides. Seeded, so that a
// figure can be reproduced from its seed and size. An instance is given twice: as the inputs the engine
// takes from events (TenantMatching.apply, in the order a bulk import would send them), and as the
// snapshots and resource views built directly, for the greedy pass and the exact solver.
import type { Address, Availability, Employee, NamedAddress, TransportResource } from '@rm/contracts';
import {
  type AvailableEmployee,
  buildAvailableEmployee,
  type Input,
  INPUT_ENTITY,
  transportResourceView,
  type TransportResourceView,
} from '@rm/matching/testing';

/** How scarce transport resources are at a place: employees per resource that can be driven. */
export type Scenario = 'scarce' | 'tight' | 'plentiful';

export interface InstanceSize {
  readonly scenario: Scenario;
  /** About this many availabilities (one shift on most days of each employee). */
  readonly availabilities: number;
  readonly seed: number;
  /** 14 unless told. */
  readonly days?: number;
}

export interface MatchingInstance {
  /** `scarce:2000#1`: scenario, availabilities asked for, seed. */
  readonly name: string;
  readonly size: InstanceSize;
  /** In the order they are streamed: home bases, resources and their unavailabilities, employees and theirs, availabilities. */
  readonly inputs: readonly Input[];
  readonly snapshots: readonly AvailableEmployee[];
  readonly resources: readonly TransportResourceView[];
  /** Before every shift: the `now` to apply the inputs with (no shift has started). */
  readonly now: number;
  readonly counts: { employees: number; homeBases: number; adHocPlaces: number; trailers: number; inactive: number };
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** An integer in [from, to]. */
  int(from: number, to: number): number {
    return from + Math.floor(this.next() * (to - from + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** By weight: [[value, weight], …]. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [value, weight] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return (choices[choices.length - 1] as readonly [T, number])[0];
  }
  shuffle<T>(items: T[]): T[] {
    for (let index = items.length - 1; index > 0; index -= 1) {
      const other = Math.floor(this.next() * (index + 1));
      [items[index], items[other]] = [items[other] as T, items[index] as T];
    }
    return items;
  }
  /** A UUID of version 4 shape (the ids the services generate), from this generator. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.next() * 16).toString(16));
    hex[12] = '4';
    hex[16] = ((Math.floor(this.next() * 4) + 8) as number).toString(16);
    const text = hex.join('');
    return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
  }
}

/** Monday 2030-01-07 00:00 UTC: day 0 of every instance. */
const DAY_ZERO = Date.UTC(2030, 0, 7);
const HOUR = 3_600_000;
const MINUTE = 60_000;
const iso = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z');
const duration = (ms: number) => {
  const hours = Math.floor(ms / HOUR);
  const minutes = Math.round((ms - hours * HOUR) / MINUTE);
  return `PT${hours > 0 ? `${hours}H` : ''}${minutes > 0 || hours === 0 ? `${minutes}M` : ''}`;
};

/** Employees per drivable transport resource at a place, by scenario. */
const EMPLOYEES_PER_RESOURCE: Record<Scenario, [number, number]> = { scarce: [5, 8], tight: [1.5, 2.5], plentiful: [0.35, 0.5] };
/** Shifts on about 85 % of the days. */
const SHIFT_DAYS = 0.85;
const DRIVER_SKILLS: readonly (readonly [string[], number])[] = [
  [['C'], 30],
  [['C', 'CE'], 38],
  [['C', 'CE', 'ADR'], 20],
  [['C', 'ADR'], 7],
  [[], 5],
];

interface Place {
  readonly kind: 'home-base' | 'ad-hoc';
  readonly id: string;
  readonly address: NamedAddress;
  /** How many employees start here. */
  employees: number;
}

type EmployeeData = Omit<Employee, 'version'>;
type ResourceData = Omit<TransportResource, 'version'>;
type AvailabilityData = Omit<Availability, 'version'>;
interface Unavailability {
  id: string;
  from: string;
  to: string;
}

/** One instance: everything follows from the size and the seed. */
export function generateInstance(size: InstanceSize): MatchingInstance {
  const random = new Random(size.seed * 7919 + size.availabilities);
  const days = size.days ?? 14;
  const employeeCount = Math.max(1, Math.round(size.availabilities / (days * SHIFT_DAYS)));

  // places: home bases of very different sizes (a few large depots, many small ones), and some ad-hoc places
  const homeBaseCount = Math.max(1, Math.round(employeeCount / 40));
  const adHocCount = Math.max(1, Math.round(employeeCount / 150));
  const places: Place[] = [];
  for (let index = 0; index < homeBaseCount; index += 1) {
    const id = `hb-${String(index + 1).padStart(3, '0')}`;
    places.push({ kind: 'home-base', id, address: address(`Depot ${index + 1}`, index), employees: 0 });
  }
  for (let index = 0; index < adHocCount; index += 1) {
    const name = `Yard ${String.fromCharCode(65 + (index % 26))}${Math.floor(index / 26) || ''}`;
    places.push({ kind: 'ad-hoc', id: name, address: address(name, homeBaseCount + index), employees: 0 });
  }
  // Zipf-like weights: the first places are the big ones
  const placeWeights = places.map((place, index) => [place, (place.kind === 'ad-hoc' ? 0.5 : 1) / (1 + index) ** 0.8] as const);

  // employees
  const employees: EmployeeData[] = [];
  const placeOfEmployee = new Map<string, Place>();
  for (let index = 0; index < employeeCount; index += 1) {
    const place = random.weighted(placeWeights);
    place.employees += 1;
    const id = `emp-${String(index + 1).padStart(5, '0')}`;
    placeOfEmployee.set(id, place);
    employees.push({
      business_id: id,
      name: { first_name: 'Driver', last_name: String(index + 1) },
      driver_skills: [...random.weighted(DRIVER_SKILLS)],
      ...(place.kind === 'home-base' ? { home_base: { business_id: place.id } } : { start_location: place.address }),
      ...(random.chance(0.3) ? { costs: { per_hour: random.int(25, 40) } } : {}),
    });
  }

  // transport resources: per place, by its employees and the scenario; a share of trailers and inactive ones on top
  const resources: ResourceData[] = [];
  const [fewest, most] = EMPLOYEES_PER_RESOURCE[size.scenario];
  let trailers = 0;
  let inactive = 0;
  for (const place of places) {
    if (place.employees === 0) continue;
    const perResource = fewest + random.next() * (most - fewest);
    const drivable = Math.max(1, Math.round(place.employees / perResource));
    const count = drivable + Math.round(drivable * 0.12);
    for (let index = 0; index < count; index += 1) {
      const type = index >= drivable ? 'TRAILER' : random.weighted([['TRUCK', 62], ['TRACTOR', 38]] as const);
      if (type === 'TRAILER') trailers += 1;
      const adr = type !== 'TRAILER' && random.chance(0.2);
      const off = random.chance(0.03);
      if (off) inactive += 1;
      const base = type === 'TRACTOR' ? 120 : 80;
      resources.push({
        business_id: `tr-${String(resources.length + 1).padStart(5, '0')}`,
        type,
        license_plate: `B-${String(resources.length + 1).padStart(5, '0')}`,
        requirements: type === 'TRACTOR' ? ['CE'] : type === 'TRUCK' ? ['C'] : [],
        ...(adr ? { required_capabilities: ['ADR'] } : {}),
        ...(random.chance(0.3) ? { capabilities: [random.pick(['TAIL_LIFT', 'COOLING', 'CRANE'])] } : {}),
        ...(place.kind === 'home-base' ? { home_base: { business_id: place.id } } : { start_location: place.address }),
        inactive: off,
        // costs rounded to cents, some with none (cost 0)
        ...(random.chance(0.9) ? { costs: { fixed: Math.round((base + random.next() * 100) * 100) / 100 } } : {}),
      });
    }
  }
  const resourcesAt = new Map<string, ResourceData[]>();
  for (const resource of resources) {
    const key = resource.home_base?.business_id ?? resource.start_location?.name ?? '';
    resourcesAt.set(key, [...(resourcesAt.get(key) ?? []), resource]);
  }

  // linked transport resources: a quarter of the employees, one they can drive at their place
  for (const [index, employee] of employees.entries()) {
    if (!random.chance(0.25)) continue;
    const place = placeOfEmployee.get(employee.business_id) as Place;
    const skills = employee.driver_skills ?? [];
    const needs = (resource: ResourceData) => [...(resource.requirements ?? []), ...(resource.required_capabilities ?? [])];
    const drivable = (resourcesAt.get(place.id) ?? []).filter(
      (resource) => resource.type !== 'TRAILER' && needs(resource).every((skill) => skills.includes(skill)),
    );
    if (drivable.length > 0) employees[index] = { ...employee, linked_transport_resource: random.pick(drivable).business_id };
  }

  // unavailabilities: a vacation or an appointment for some employees, maintenance for some resources
  const employeeUnavailabilities = new Map<string, Unavailability[]>();
  for (const employee of employees) {
    if (!random.chance(0.15)) continue;
    const from = DAY_ZERO + random.int(0, days - 1) * 24 * HOUR + (random.chance(0.5) ? 0 : random.int(7, 15) * HOUR);
    const length = from % (24 * HOUR) === 0 ? random.int(2, 5) * 24 * HOUR : random.int(2, 4) * HOUR;
    employeeUnavailabilities.set(employee.business_id, [{ id: random.uuid(), from: iso(from), to: iso(from + length) }]);
  }
  const resourceUnavailabilities = new Map<string, Unavailability[]>();
  for (const resource of resources) {
    if (!random.chance(0.15)) continue;
    const from = DAY_ZERO + random.int(0, days - 1) * 24 * HOUR + random.int(0, 23) * HOUR;
    resourceUnavailabilities.set(resource.business_id, [{ id: random.uuid(), from: iso(from), to: iso(from + random.int(4, 48) * HOUR) }]);
  }

  // availabilities: one shift on most days, never overlapping the employee's previous one
  const availabilities: { day: number; data: AvailabilityData }[] = [];
  const homeBasePlaces = places.filter((place) => place.kind === 'home-base');
  for (const employee of employees) {
    let previousEnd = -Infinity;
    for (let day = 0; day < days; day += 1) {
      if (!random.chance(SHIFT_DAYS)) continue;
      const startHour = random.weighted([
        [random.int(4, 8), 60],
        [random.int(9, 13), 25],
        [random.int(18, 22), 15],
      ] as const);
      let earliest = DAY_ZERO + day * 24 * HOUR + startHour * HOUR + random.int(0, 3) * 15 * MINUTE;
      if (earliest < previousEnd) earliest = Math.ceil((previousEnd + HOUR) / (15 * MINUTE)) * 15 * MINUTE;
      const maxDuration = random.int(12, 22) * 30 * MINUTE;
      const latestStart = random.chance(0.3) ? earliest + random.int(2, 8) * 15 * MINUTE : undefined;
      const minDuration = random.chance(0.3) ? Math.max(4 * HOUR, maxDuration - random.int(2, 6) * 30 * MINUTE) : undefined;
      // a hard stop between earliest + (min ?? max) and (latest ?? earliest) + max, when that leaves room
      const stopFloor = earliest + (minDuration ?? maxDuration);
      const stopCeiling = (latestStart ?? earliest) + maxDuration;
      const latestStop = random.chance(0.1) && stopCeiling - stopFloor >= 30 * MINUTE ? stopCeiling - 30 * MINUTE : undefined;
      const override = random.chance(0.05) ? startOverride(random, homeBasePlaces, places) : undefined;
      const data: AvailabilityData = {
        id: random.uuid(),
        employee_id: employee.business_id,
        earliest_start: iso(earliest),
        ...(latestStart === undefined ? {} : { latest_start: iso(latestStart) }),
        ...(latestStop === undefined ? {} : { latest_stop: iso(latestStop) }),
        ...(minDuration === undefined ? {} : { min_duration: duration(minDuration) }),
        max_duration: duration(maxDuration),
        ...(random.chance(0.25) ? { mandatory: true } : {}),
        ...(override === undefined ? {} : { start_location: override }),
      };
      previousEnd = latestStop ?? stopCeiling;
      availabilities.push({ day, data });
    }
  }

  const inputs = streamOrder(random, { places, resources, resourceUnavailabilities, employees, employeeUnavailabilities, availabilities });
  const homeBases = new Map<string, Address>(homeBasePlaces.map((place) => [place.id, place.address]));
  const employeeById = new Map(employees.map((employee) => [employee.business_id, employee]));
  const snapshots = availabilities.map(({ data }) =>
    buildAvailableEmployee({
      availability: data,
      employee: employeeById.get(data.employee_id) as EmployeeData,
      unavailabilities: employeeUnavailabilities.get(data.employee_id) ?? [],
      homeBases,
    }),
  );
  const views = resources.map((resource) => transportResourceView(resource, resourceUnavailabilities.get(resource.business_id) ?? []));
  return {
    name: `${size.scenario}:${size.availabilities}#${size.seed}`,
    size,
    inputs,
    snapshots,
    resources: views,
    now: DAY_ZERO - 24 * HOUR,
    counts: { employees: employees.length, homeBases: homeBaseCount, adHocPlaces: adHocCount, trailers, inactive },
  };
}

function address(name: string, index: number): NamedAddress {
  return { name, address_line: `Industrieweg ${index + 1}`, city: 'Gent', zip_code: String(9000 + (index % 100)), country_code: 'BE' };
}

/** An availability that starts elsewhere than its employee: another home base, or an ad-hoc place by name. */
function startOverride(random: Random, homeBases: readonly Place[], places: readonly Place[]): AvailabilityData['start_location'] {
  const place = random.chance(0.5) && homeBases.length > 0 ? random.pick(homeBases) : random.pick(places);
  return place.kind === 'home-base' ? { home_base: { business_id: place.id } } : { address: place.address };
}

interface Parts {
  places: readonly Place[];
  resources: readonly ResourceData[];
  resourceUnavailabilities: ReadonlyMap<string, readonly Unavailability[]>;
  employees: readonly EmployeeData[];
  employeeUnavailabilities: ReadonlyMap<string, readonly Unavailability[]>;
  availabilities: readonly { day: number; data: AvailabilityData }[];
}

/**
 * The order of a bulk import: home bases, transport resources and their unavailabilities, employees and
 * theirs, then the availabilities day by day, the employees of a day in random order (a planner's import
 * of a fortnight interleaves employees).
 */
function streamOrder(random: Random, parts: Parts): Input[] {
  const input = (entity: string, id: string, data: object): Input => ({
    entity,
    id,
    version: 1,
    deleted: false,
    data: data as Record<string, unknown>,
  });
  const inputs: Input[] = [];
  for (const place of parts.places) {
    if (place.kind !== 'home-base') continue;
    inputs.push(input(INPUT_ENTITY.homeBase, place.id, { business_id: place.id, name: place.address.name, address: place.address }));
  }
  for (const resource of parts.resources) inputs.push(input(INPUT_ENTITY.transportResource, resource.business_id, resource));
  for (const [resourceId, unavailabilities] of parts.resourceUnavailabilities) {
    for (const one of unavailabilities) {
      const data = { ...one, transport_resource_id: resourceId };
      inputs.push(input(INPUT_ENTITY.transportResourceUnavailability, `${resourceId}/${one.id}`, data));
    }
  }
  for (const employee of parts.employees) inputs.push(input(INPUT_ENTITY.employee, employee.business_id, employee));
  for (const [employeeId, unavailabilities] of parts.employeeUnavailabilities) {
    for (const one of unavailabilities) {
      inputs.push(input(INPUT_ENTITY.employeeUnavailability, `${employeeId}/${one.id}`, { ...one, employee_id: employeeId }));
    }
  }
  const byDay = new Map<number, AvailabilityData[]>();
  for (const { day, data } of parts.availabilities) byDay.set(day, [...(byDay.get(day) ?? []), data]);
  for (const day of [...byDay.keys()].sort((a, b) => a - b)) {
    for (const data of random.shuffle(byDay.get(day) ?? [])) {
      inputs.push(input(INPUT_ENTITY.availability, `${data.employee_id}/${data.id}`, data));
    }
  }
  return inputs;
}

/** `scarce:2000`, `plentiful:10000#3`: a scenario, about as many availabilities, and a seed (1 unless told). */
export function parseSize(text: string): InstanceSize {
  const match = /^(scarce|tight|plentiful):(\d+)(?:#(\d+))?$/.exec(text.trim());
  if (match === null) throw new Error(`not a size: ${text} (scenario:availabilities[#seed], scenario one of scarce, tight, plentiful)`);
  return { scenario: match[1] as Scenario, availabilities: Number(match[2]), seed: Number(match[3] ?? 1) };
}
