import { lanesOf } from './lanes.js';
import { formatDay, formatTime, placement, ticksOf, type Range } from './timeline.js';

/** One bar of a track: a span with its text, a description for screen readers and tooltips, and what choosing it does. */
export interface Bar {
  key: string;
  kind: 'combination' | 'deployed' | 'unavailable' | 'unmatched' | 'expected' | 'covered' | 'conflict' | 'availability';
  start: number;
  end: number;
  /** A part drawn darker inside: the guaranteed working time. */
  inner?: { start: number; end: number };
  text: string;
  description: string;
  select?: () => void;
}

/** The time axis above the tracks. */
export function Axis({ range, label }: { range: Range; label: string }) {
  const format = range.days > 1 ? formatDay : formatTime;
  return (
    <div class="row axis" role="row">
      <span class="row-label" role="columnheader">
        {label}
      </span>
      <div class="track" role="columnheader" aria-label="Time">
        {ticksOf(range).map((tick) => {
          const at = placement(range, tick, tick + 1);
          return at === undefined ? null : (
            <span class="tick" key={tick} style={{ left: `${at.left}%` }}>
              {format(tick, range.zone)}
            </span>
          );
        })}
      </div>
    </div>
  );
}

/** A row: its label, and its bars placed on the range, overlapping ones in sub-rows; bars that can be chosen are buttons, so the keyboard reaches them. */
export function Track({ label, detail, range, bars, lane }: { label: string; detail?: string; range: Range; bars: Bar[]; lane?: string }) {
  const placed = bars.flatMap((bar) => {
    const at = placement(range, bar.start, bar.end);
    return at === undefined ? [] : [{ bar, at }];
  });
  // unavailabilities are a band along the bottom, under the bars: they take no sub-row
  const stacked = placed.filter(({ bar }) => bar.kind !== 'unavailable');
  const lanes = lanesOf(stacked.map(({ bar }) => bar));
  const laneOf = new Map(stacked.map(({ bar }, index) => [bar.key, lanes[index]!]));
  const rows = Math.max(1, ...lanes.map((each) => each + 1));
  return (
    <div class={`row${lane === undefined ? '' : ` ${lane}`}`} role="row">
      <span class="row-label" role="rowheader">
        {label}
        {detail !== undefined && <small>{detail}</small>}
      </span>
      <div class="track" role="cell" style={{ '--lanes': rows }}>
        {placed.map(({ bar, at }) => {
          const style = { left: `${at.left}%`, width: `max(${at.width}%, 4px)`, '--lane': laneOf.get(bar.key) ?? 0 };
          const inner = bar.inner === undefined ? undefined : placement({ from: Math.max(bar.start, range.from), until: Math.min(bar.end, range.until) }, bar.inner.start, bar.inner.end);
          const content = (
            <>
              {inner !== undefined && <span class="inner" style={{ left: `${inner.left}%`, width: `${inner.width}%` }} aria-hidden="true" />}
              <span class="bar-text">{bar.text}</span>
            </>
          );
          // a plain span's aria-label is not announced: as an image, its description is its name
          return bar.select === undefined ? (
            <span key={bar.key} class={`bar ${bar.kind}`} style={style} title={bar.description} role="img" aria-label={bar.description}>
              {content}
            </span>
          ) : (
            <button type="button" key={bar.key} class={`bar ${bar.kind}`} style={style} title={bar.description} aria-label={bar.description} onClick={bar.select}>
              {content}
            </button>
          );
        })}
      </div>
    </div>
  );
}
