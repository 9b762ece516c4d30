import { useEffect, useState } from 'preact/hooks';
import type { ApiClient, Data } from '@rm/client';
// the API's own reading of a duration (weeks and fractions too), without the rest of the contracts in the bundle
import { shiftWindowOf } from '@rm/contracts/shift-window';
import { Axis, Track, type Bar } from './track.js';
import { formatSpan, rangeOf, type Range } from './timeline.js';

type Expected = Data<'getExpectedAvailability'>;
type Availabilities = Data<'getEmployeeAvailabilities'>;
type Unavailabilities = Data<'getEmployeeUnavailabilities'>;
type Generation = Data<'generateAvailabilities'>;

interface EmployeeBoard {
  expected: Expected;
  availabilities: Availabilities;
  unavailabilities: Unavailabilities;
}

/** An employee's expected shifts (from the schedules, whose days and times are read in `zone`) beside the availabilities and unavailabilities, and a button that generates the missing ones. */
export function EmployeeView({ rm, day, days, zone, revision }: { rm: ApiClient; day: string; days: number; zone: string; revision: number }) {
  const [employeeId, setEmployeeId] = useState('');
  const [shown, setShown] = useState<string>();
  const [board, setBoard] = useState<EmployeeBoard>();
  const [generated, setGenerated] = useState<Generation>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [reloads, setReloads] = useState(0);
  const range = rangeOf(day, days, zone);
  const query = { from: new Date(range.from).toISOString(), until: new Date(range.until).toISOString() };

  useEffect(() => {
    if (shown === undefined) return;
    setError(undefined);
    let superseded = false;
    Promise.all([
      rm.getExpectedAvailability(shown, { query: { ...query, time_zone: zone } }),
      rm.getEmployeeAvailabilities(shown, { query }),
      rm.getEmployeeUnavailabilities(shown, { query }),
    ]).then(
      ([expected, availabilities, unavailabilities]) =>
        superseded || setBoard({ expected: expected.data, availabilities: availabilities.data, unavailabilities: unavailabilities.data }),
      (failure: unknown) => {
        if (superseded) return;
        setBoard(undefined);
        setError(String(failure));
      },
    );
    // an answer for an employee or range the planner has left is dropped
    return () => {
      superseded = true;
    };
  }, [rm, shown, range.from, range.until, zone, revision, reloads]);

  async function generate() {
    if (shown === undefined) return;
    setBusy(true);
    try {
      setGenerated((await rm.generateAvailabilities(shown, { ...query, time_zone: zone })).data);
      setReloads((count) => count + 1);
    } catch (failure) {
      setError(String(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="employee-heading">
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          setGenerated(undefined);
          setShown(employeeId.trim());
        }}
      >
        <h2 id="employee-heading">Employee</h2>
        <label>
          Employee id <input value={employeeId} onInput={(event) => setEmployeeId((event.target as HTMLInputElement).value)} required />
        </label>
        <button type="submit">Show</button>
      </form>
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {shown !== undefined && board !== undefined && (
        <>
          <div class="timeline" role="table" aria-label={`Shifts of ${shown}`}>
            <Axis range={range} label="Shifts" />
            <Track label="Expected" detail={`from schedules, ${zone}`} range={range} bars={expectedBars(range, board.expected)} />
            <Track label="Availabilities" range={range} bars={board.availabilities.map((availability) => availabilityBar(range, availability))} />
            <Track
              label="Unavailable"
              range={range}
              bars={board.unavailabilities.map((unavailability) => ({
                key: unavailability.id,
                kind: 'unavailable',
                start: Date.parse(unavailability.from),
                end: Date.parse(unavailability.to),
                text: unavailability.description ?? 'unavailable',
                description: `unavailable ${formatSpan(range, unavailability.from, unavailability.to)}`,
              }))}
            />
          </div>
          <p>
            {board.expected.length} expected shift{board.expected.length === 1 ? '' : 's'}, {board.expected.filter((shift) => shift.covered_by === undefined && shift.overlapping === undefined).length} without an
            availability.{' '}
            <button type="button" onClick={generate} disabled={busy}>
              Generate missing availabilities
            </button>
          </p>
          {generated !== undefined && (
            <p role="status" class="generated">
              Created {generated.created.length}, already there {generated.existing.length}, overlapping another availability {generated.overlapping.length}
              {generated.refused.length > 0 ? `, refused ${generated.refused.length} (${generated.refused.map((each) => each.problem.detail).join('; ')})` : ''}.
            </p>
          )}
        </>
      )}
    </section>
  );
}

function expectedBars(range: Range, expected: Expected): Bar[] {
  return expected.map((shift) => {
    const start = Date.parse(shift.availability.earliest_start);
    const end = shiftWindowOf(shift.availability).end;
    const state = shift.covered_by !== undefined ? 'covered' : shift.overlapping !== undefined ? 'conflict' : 'expected';
    const said = { covered: 'has its availability', conflict: 'overlaps another availability', expected: 'no availability yet' }[state];
    const text = { covered: 'covered', conflict: 'overlaps', expected: 'missing' }[state];
    return { key: `${shift.shift_schedule_id}-${start}`, kind: state, start, end, text, description: `expected ${formatSpan(range, start, end)}: ${said}` };
  });
}

function availabilityBar(range: Range, availability: Availabilities[number]): Bar {
  const start = Date.parse(availability.earliest_start);
  const end = shiftWindowOf(availability).end;
  const mandatory = availability.mandatory === true ? ', mandatory' : '';
  return { key: availability.id, kind: 'availability', start, end, text: formatSpan(range, start, end), description: `available ${formatSpan(range, start, end)}${mandatory}` };
}
