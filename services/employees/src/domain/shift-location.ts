import { addressViolations, withoutResolved, type EndLocation, type StartLocation, type Violation } from '@rm/contracts';

const FLAT_ADDRESS_FIELDS = ['name', 'address_line', 'city', 'zip_code', 'country_code', 'geo_point'] as const;

/** What a start location chooses: at most one of these may be there (spec: Start location). */
function startChoices(location: StartLocation): string[] {
  const choices: string[] = [];
  if (location.address !== undefined) choices.push('address');
  if (location.home_base !== undefined) choices.push('home_base');
  if (location.at_last_end === true) choices.push('at_last_end');
  if (FLAT_ADDRESS_FIELDS.some((field) => location[field] !== undefined)) choices.push('the deprecated flat address fields');
  return choices;
}

/** Whether the start location names an ad-hoc address (the `address` object or the deprecated flat fields). */
export function isAdHocStart(location: StartLocation | undefined): boolean {
  return location !== undefined && (location.address !== undefined || FLAT_ADDRESS_FIELDS.some((field) => location[field] !== undefined));
}

/** Whether the start location chooses anything at all. */
export function choosesStart(location: StartLocation | undefined): boolean {
  return location !== undefined && startChoices(location).length > 0;
}

/**
 * The rules of an availability's or a shift's start location that its schema cannot say: one choice
 * at most; an address complete (address information or a geo point); the deprecated flat fields with
 * `name`. `path` is its JSON path in the body.
 */
export function startLocationViolations(location: StartLocation, path: string): Violation[] {
  const choices = startChoices(location);
  if (choices.length > 1) return [{ field: path, message: `only one of ${choices.join(', ')} may be given` }];
  if (location.address !== undefined) return addressViolations(location.address, `${path}.address`);
  if (choices[0] !== 'the deprecated flat address fields') return [];
  const name: Violation[] = location.name === undefined ? [{ field: `${path}.name`, message: 'is required with the deprecated flat address fields' }] : [];
  return [...name, ...addressViolations(location, path)];
}

/** The rules of an end location: one choice at most, and an address with address information or a geo point. */
export function endLocationViolations(location: EndLocation, path: string): Violation[] {
  const choices = (['address', 'home_base', 'at_last_activity'] as const).filter((choice) =>
    choice === 'at_last_activity' ? location.at_last_activity === true : location[choice] !== undefined,
  );
  if (choices.length > 1) return [{ field: path, message: `only one of ${choices.join(', ')} may be given` }];
  return location.address === undefined ? [] : addressViolations(location.address, `${path}.address`);
}

/** The stored form of a start location: `geo_point.resolved` is read-only wherever it is. */
export function storedStartLocation(location: StartLocation): StartLocation {
  const flat = withoutResolved(location);
  return flat.address === undefined ? flat : { ...flat, address: withoutResolved(flat.address) };
}

export function storedEndLocation(location: EndLocation): EndLocation {
  return location.address === undefined ? location : { ...location, address: withoutResolved(location.address) };
}

/** The home bases a start or end location refers to, for the existence check (see home-base-references.ts). */
export function homeBasesOf(...locations: (StartLocation | EndLocation | undefined)[]): string[] {
  return locations.flatMap((location) => (location?.home_base === undefined ? [] : [location.home_base.business_id]));
}
