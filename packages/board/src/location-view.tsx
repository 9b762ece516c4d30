import { useEffect, useState } from 'preact/hooks';
import type { ApiClient, Data, Item } from '@rm/client';
import { mapLimited } from './limited.js';
import { all } from './session.js';
import { Track, Axis, type Bar } from './track.js';
import { formatDayTime, formatSpan, rangeOf, type Range } from './timeline.js';

type TransportResource = Item<'getPagedTransportResources'>;
type Combination = Item<'getPagedResourceCombinations'>;
type AvailableEmployee = Item<'getPagedAvailableEmployees'>;
type Candidates = Data<'getAvailableEmployeeCandidates'>;

/** A place transport resources start from: a home base, or an ad-hoc location by name (spec: Availability rules 3 and 4); or everywhere else. */
export interface Place {
  key: string;
  label: string;
}

/** The shifts that belong to no place of a transport resource: they have a lane and no rows. */
const ELSEWHERE: Place = { key: 'elsewhere', label: 'Elsewhere (no transport resource starts there)' };

function placeOf(resource: TransportResource): Place | undefined {
  if (resource.home_base !== undefined) return { key: `home-base:${resource.home_base.business_id}`, label: `Home base ${resource.home_base.business_id}` };
  if (resource.start_location !== undefined) return { key: `name:${resource.start_location.name}`, label: resource.start_location.name };
  return undefined;
}

/** The keys of the places a shift starts at: a journey's are those of the transport resources it goes on with. */
function placeKeysOf(location: AvailableEmployee['location'], placeOfResource: Map<string, string>): string[] {
  if (location.at_last_end === true) return (location.transport_resource_ids ?? []).flatMap((id) => placeOfResource.get(id) ?? []);
  return [location.home_base_id === undefined ? [] : `home-base:${location.home_base_id}`, location.name === undefined ? [] : `name:${location.name}`].flat();
}

/** What the board shows of one place in a range. */
interface PlaceBoard {
  resources: { resource: TransportResource; combinations: Combination[]; unavailabilities: { from: string; to: string; description?: string }[] }[];
  /** Shifts that start here and have no combination. */
  unmatched: AvailableEmployee[];
}

/** Loading a place asks for each of its transport resources' unavailabilities, this many at a time. */
const CONCURRENT_REQUESTS = 6;

async function loadPlaces(rm: ApiClient): Promise<{ places: Place[]; resources: TransportResource[] }> {
  const resources = await all(rm.each.getPagedTransportResources());
  const places = new Map<string, Place>();
  for (const resource of resources) {
    const place = placeOf(resource);
    if (place !== undefined) places.set(place.key, place);
  }
  return { places: [...[...places.values()].sort((a, b) => a.label.localeCompare(b.label)), ELSEWHERE], resources };
}

async function loadBoard(rm: ApiClient, place: Place, allResources: TransportResource[], range: Range): Promise<PlaceBoard> {
  const query = { from: new Date(range.from).toISOString(), until: new Date(range.until).toISOString() };
  const placeOfResource = new Map(
    allResources.flatMap((resource) => {
      const key = placeOf(resource)?.key;
      return key === undefined ? [] : [[resource.business_id, key] as const];
    }),
  );
  const here = allResources.filter((resource) => placeOf(resource)?.key === place.key).sort((a, b) => a.business_id.localeCompare(b.business_id));
  const [combinations, shifts, unavailabilities] = await Promise.all([
    all(rm.each.getPagedResourceCombinations({ query })),
    all(rm.each.getPagedAvailableEmployees({ query })),
    mapLimited(here, CONCURRENT_REQUESTS, async (resource) => (await rm.getTransportResourceUnavailabilities(resource.business_id, { query })).data),
  ]);
  const combined = new Set(combinations.map((combination) => combination.id));
  const known = new Set(placeOfResource.values());
  const belongsHere = (shift: AvailableEmployee) => {
    const keys = placeKeysOf(shift.location, placeOfResource).filter((key) => known.has(key));
    return place.key === ELSEWHERE.key ? keys.length === 0 : keys.includes(place.key);
  };
  return {
    resources: here.map((resource, index) => ({
      resource,
      combinations: combinations.filter((combination) => combination.transport_resource_ids.includes(resource.business_id)),
      unavailabilities: unavailabilities[index] ?? [],
    })),
    unmatched: shifts.filter((shift) => !combined.has(shift.id) && belongsHere(shift)),
  };
}

function combinationBar(range: Range, combination: Combination, select: () => void): Bar {
  const flags = [combination.mandatory && 'mandatory', combination.linked && 'linked', combination.deployment_id !== undefined && 'deployed, frozen'].filter(Boolean);
  const guaranteed = combination.guaranteed_working_time;
  return {
    key: combination.id,
    kind: combination.deployment_id === undefined ? 'combination' : 'deployed',
    start: Date.parse(combination.shift.start),
    end: Date.parse(combination.shift.end),
    ...(guaranteed === undefined ? {} : { inner: { start: Date.parse(guaranteed.start), end: Date.parse(guaranteed.end) } }),
    text: combination.employee_id,
    description:
      `${combination.employee_id}, shift ${formatSpan(range, combination.shift.start, combination.shift.end)}` +
      (guaranteed === undefined ? '' : `, guaranteed ${formatSpan(range, guaranteed.start, guaranteed.end)}`) +
      (flags.length > 0 ? ` (${flags.join(', ')})` : ''),
    select,
  };
}

/** One place's timeline for a day or a week: its transport resources as rows, and the shifts not combined in a lane of their own. */
export function LocationView({ rm, day, days, zone, revision }: { rm: ApiClient; day: string; days: number; zone: string; revision: number }) {
  const [places, setPlaces] = useState<{ places: Place[]; resources: TransportResource[] }>();
  const [placeKey, setPlaceKey] = useState<string>();
  // with what it shows, so that another place's or day's rows are never drawn under this one's name
  const [shown, setShown] = useState<{ of: string; board: PlaceBoard }>();
  const [selected, setSelected] = useState<{ kind: 'combination'; combination: Combination } | { kind: 'unmatched'; shift: AvailableEmployee }>();
  const [placesError, setPlacesError] = useState<string>();
  const [boardError, setBoardError] = useState<string>();
  const range = rangeOf(day, days, zone);

  useEffect(() => {
    loadPlaces(rm).then(
      (found) => {
        setPlacesError(undefined);
        setPlaces(found);
        setPlaceKey((current) => (found.places.some((each) => each.key === current) ? current : found.places[0]?.key));
      },
      (failure: unknown) => setPlacesError(String(failure)),
    );
  }, [rm, revision]);

  const place = places?.places.find((candidate) => candidate.key === placeKey);
  const showing = `${place?.key} ${range.from} ${range.until}`;
  // a change burst reloads the places (above), whose new value reloads the board: once, not twice
  useEffect(() => {
    if (place === undefined || places === undefined) return;
    let superseded = false;
    loadBoard(rm, place, places.resources, range).then(
      (board) => {
        if (superseded) return;
        setBoardError(undefined);
        setShown({ of: showing, board });
      },
      (failure: unknown) => superseded || setBoardError(String(failure)),
    );
    // an answer for a place or day the planner has left is dropped
    return () => {
      superseded = true;
    };
  }, [rm, place?.key, places, range.from, range.until]);

  // a selected shift of another place or day is not on the screen: its panel would speak of something unseen
  useEffect(() => setSelected(undefined), [placeKey, day, days, zone]);

  const error = placesError ?? boardError;
  const board = shown?.of === showing ? shown.board : undefined;
  return (
    <section aria-labelledby="location-heading">
      <div class="toolbar">
        <h2 id="location-heading">Location</h2>
        {places !== undefined && (
          <label>
            Place{' '}
            <select value={placeKey} onChange={(event) => setPlaceKey((event.target as HTMLSelectElement).value)}>
              {places.places.map((each) => (
                <option value={each.key} key={each.key}>
                  {each.label}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {error !== undefined && (
        <p role="alert" class="error">
          Could not read the board: {error}
        </p>
      )}
      {places !== undefined && places.places.length === 1 && <p class="note">No transport resource has a start location yet: the shifts below start elsewhere.</p>}
      {board === undefined ? (
        error === undefined && <p aria-live="polite">Loading…</p>
      ) : (
        <div class="timeline" role="table" aria-label={`Timeline of ${place?.label ?? ''}`}>
          <Axis range={range} label="Transport resource" />
          {board.resources.map(({ resource, combinations, unavailabilities }) => (
            <Track
              key={resource.business_id}
              label={resource.business_id}
              detail={`${resource.type}${resource.inactive ? ', inactive' : ''}`}
              range={range}
              bars={[
                ...unavailabilities.map((unavailability, index): Bar => ({
                  key: `u${index}`,
                  kind: 'unavailable',
                  start: Date.parse(unavailability.from),
                  end: Date.parse(unavailability.to),
                  text: 'unavailable',
                  description: `unavailable ${formatSpan(range, unavailability.from, unavailability.to)}${unavailability.description === undefined ? '' : `: ${unavailability.description}`}`,
                })),
                ...combinations.map((combination) => combinationBar(range, combination, () => setSelected({ kind: 'combination', combination }))),
              ]}
            />
          ))}
          <Track
            label="Not combined"
            detail={`${board.unmatched.length} shift${board.unmatched.length === 1 ? '' : 's'}`}
            range={range}
            lane="unmatched"
            bars={board.unmatched.map((shift) => ({
              key: shift.id,
              kind: 'unmatched',
              start: Date.parse(shift.shift.start),
              end: Date.parse(shift.shift.end),
              text: shift.employee_id,
              description: `${shift.employee_id}, shift ${formatSpan(range, shift.shift.start, shift.shift.end)}, not combined: why?`,
              select: () => setSelected({ kind: 'unmatched', shift }),
            }))}
          />
        </div>
      )}
      {selected?.kind === 'combination' && <CombinationDetails range={range} combination={selected.combination} />}
      {selected?.kind === 'unmatched' && <WhyNotCombined key={selected.shift.id} rm={rm} range={range} shift={selected.shift} revision={revision} />}
    </section>
  );
}

function CombinationDetails({ range, combination }: { range: Range; combination: Combination }) {
  return (
    <aside class="details" aria-label="Selected combination">
      <h3>
        {combination.employee_id} on {combination.transport_resource_ids.join(' + ')}
      </h3>
      <dl>
        <dt>Shift</dt>
        <dd>{formatSpan(range, combination.shift.start, combination.shift.end)}</dd>
        {combination.guaranteed_working_time !== undefined && (
          <>
            <dt>Guaranteed working time</dt>
            <dd>{formatSpan(range, combination.guaranteed_working_time.start, combination.guaranteed_working_time.end)}</dd>
          </>
        )}
        <dt>Mandatory</dt>
        <dd>{combination.mandatory ? 'yes' : 'no'}</dd>
        <dt>Linked</dt>
        <dd>{combination.linked ? 'yes: the employee’s own transport resource' : 'no'}</dd>
        <dt>Deployed</dt>
        <dd>{combination.deployment_id === undefined ? 'no' : `yes, by ${combination.deployment_id}: frozen`}</dd>
        <dt>Capabilities</dt>
        <dd>{combination.capabilities.join(', ') || 'none'}</dd>
      </dl>
    </aside>
  );
}

/** The engine's reasons for each transport resource the shift could take (GET /available-employee/{id}/candidates). */
function WhyNotCombined({ rm, range, shift, revision }: { rm: ApiClient; range: Range; shift: AvailableEmployee; revision: number }) {
  const [candidates, setCandidates] = useState<Candidates>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    rm.getAvailableEmployeeCandidates(shift.id).then(
      ({ data }) => {
        setError(undefined);
        setCandidates(data);
      },
      (failure: unknown) => setError(String(failure)),
    );
  }, [rm, shift.id, revision]);
  // the engine may have combined it since the board was drawn: then there is nothing to explain
  const combinedWith = candidates === undefined ? [] : (candidates.combined_with ?? candidates.candidates.filter((each) => each.combined).map((each) => each.transport_resource_id));
  const span = formatSpan(range, shift.shift.start, shift.shift.end);
  return (
    <aside class="details" aria-label="Why the shift is not combined">
      <h3>{combinedWith.length > 0 ? `${shift.employee_id}’s shift ${span} is combined now` : `Why ${shift.employee_id}’s shift ${span} is not combined`}</h3>
      {error !== undefined && <p role="alert">{error}</p>}
      {candidates === undefined && error === undefined && <p aria-live="polite">Asking the engine…</p>}
      {combinedWith.length > 0 && <p>The engine has combined it with {combinedWith.join(' + ')} since the board was drawn; it moves there when the board reloads.</p>}
      {candidates !== undefined && combinedWith.length === 0 && candidates.candidates.length === 0 && <p>No transport resource starts where this shift does.</p>}
      {candidates !== undefined && combinedWith.length === 0 && candidates.candidates.length > 0 && (
        <ul class="candidates">
          {candidates.candidates.map((candidate) => (
            <li key={candidate.transport_resource_id}>
              <strong>{candidate.transport_resource_id}</strong>:{' '}
              {candidate.feasible
                ? 'feasible: the engine may still choose it (a re-solve runs when changes quiet down)'
                : candidate.reasons.map((reason) => reasonText(range, reason)).join('; ')}
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}

function reasonText(range: Range, reason: NonNullable<Candidates>['candidates'][number]['reasons'][number]): string {
  if (reason.missing !== undefined && reason.missing.length > 0) return `${reason.message}: ${reason.missing.join(', ')}`;
  if (reason.periods !== undefined && reason.periods.length > 0) return `${reason.message} (${reason.periods.map((period) => `${formatDayTime(period.from, range.zone)}–${formatDayTime(period.to, range.zone)}`).join(', ')})`;
  return reason.message;
}
