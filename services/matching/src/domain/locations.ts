import type { TransportResourceView } from './feasibility.js';
import type { AvailableEmployee } from './snapshot.js';

/*
 * Where shifts and transport resources can meet (DESIGN §6): the keys they meet under, and the location
 * components those keys split a tenant into. The incremental matcher looks only at the part a change
 * touches; the exact re-solve solves each component apart.
 */

/** The key of a transport resource itself, under which the shifts of journeys on it meet it. */
export const resourceKey = (id: string) => `resource:${id}`;

/**
 * Shifts and transport resources meet under keys: a home base, an ad-hoc location name, or (for a
 * journey) a transport resource id. Keys split a tenant into independent parts, so that a change
 * looks only at its own part.
 */
export function shiftKeys(shift: AvailableEmployee): string[] {
  const { location } = shift;
  switch (location.kind) {
    case 'home-base':
      return [`home-base:${location.id}`];
    case 'ad-hoc':
      return [`ad-hoc:${location.name}`];
    case 'journey':
      return location.transportResourceIds.map(resourceKey);
    case 'none':
      return [];
  }
}

export function resourceKeys(resource: TransportResourceView): string[] {
  const { location } = resource;
  const own = resourceKey(resource.id);
  if (location.kind === 'home-base') return [`home-base:${location.id}`, own];
  if (location.kind === 'ad-hoc') return [`ad-hoc:${location.name}`, own];
  return [own];
}

/** A location component: shifts and the transport resources they could ever share (matcher keys, DESIGN §6). */
export interface Component extends LocationPart {
  /** The component's first key, e.g. `home-base:hb1`: a stable name for reports. */
  readonly key: string;
}

/** A location component's shifts and transport resources, as `components` splits them. */
export interface LocationPart {
  readonly shifts: readonly AvailableEmployee[];
  readonly resources: readonly TransportResourceView[];
}

/** Splits shifts and resources into the components of the matcher's keys: home base, ad-hoc name, and a journey's resources. */
export function components(shifts: readonly AvailableEmployee[], resources: readonly TransportResourceView[]): Component[] {
  const parent = new Map<string, string>();
  const find = (key: string): string => {
    let root = key;
    for (let up = parent.get(root); up !== undefined && up !== root; up = parent.get(root)) root = up;
    // path compression
    for (let node = key, up = parent.get(node); up !== undefined && up !== root; node = up, up = parent.get(node)) parent.set(node, root);
    if (!parent.has(root)) parent.set(root, root);
    return root;
  };
  const union = (keys: readonly string[]) => {
    const [first, ...rest] = keys;
    if (first === undefined) return;
    const root = find(first);
    for (const key of rest) {
      const other = find(key);
      if (other !== root) parent.set(other, root);
    }
  };
  for (const resource of resources) union(resourceKeys(resource));
  for (const shift of shifts) union(shiftKeys(shift));
  const byRoot = new Map<string, { key: string; shifts: AvailableEmployee[]; resources: TransportResourceView[] }>();
  const groupOf = (key: string) => {
    const root = find(key);
    let group = byRoot.get(root);
    if (group === undefined) {
      group = { key, shifts: [], resources: [] };
      byRoot.set(root, group);
    }
    return group;
  };
  for (const resource of resources) groupOf(resourceKeys(resource)[0] as string).resources.push(resource);
  for (const shift of shifts) {
    const [key] = shiftKeys(shift);
    // a shift with no start location can be matched with nothing: it belongs to no component
    if (key !== undefined) groupOf(key).shifts.push(shift);
  }
  return [...byRoot.values()];
}
