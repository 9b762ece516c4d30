import { Type, type Static } from '@sinclair/typebox';
import { entityEvents } from '@rm/contracts';
import type { Db } from 'mongodb';
import type { OutboxEntry } from '@rm/contracts';
import {
  createStore,
  fromJsonText,
  fromStoredEvent,
  overlapping,
  type CollectionDefinition,
  type GuardDefinition,
  type ResourceCollection,
  type Store,
  type StoreOptions,
  type StoredDocument,
} from '../src/index.js';

/** A top-level resource of the tests. */
export interface Widget {
  colour: string;
  tags?: string[];
}

/** A sub-resource of a widget with a time span `[from, until)`, like an employee's availability. */
export interface Part {
  from: string;
  until: string;
  label?: string;
}

const WidgetState = Type.Object(
  { business_id: Type.String(), colour: Type.String(), tags: Type.Optional(Type.Array(Type.String())), version: Type.Integer() },
  { additionalProperties: false },
);
const PartState = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    widget_id: Type.String(),
    from: Type.String({ format: 'date-time' }),
    until: Type.String({ format: 'date-time' }),
    label: Type.Optional(Type.String()),
    version: Type.Integer(),
  },
  { additionalProperties: false },
);

export const WIDGET_EVENTS = entityEvents('things', 'widget', WidgetState);
export const PART_EVENTS = entityEvents('things', 'part', PartState);
export type WidgetState = Static<typeof WidgetState>;

export function testStore(db: Db, options: Partial<StoreOptions> = {}): Store {
  return createStore(db, { maxEventBytes: 1024 ** 2, ...options });
}

export function widgetDefinition(overrides: Partial<CollectionDefinition<Widget>> = {}): CollectionDefinition<Widget> {
  return {
    name: 'widgets',
    events: WIDGET_EVENTS,
    represent: (resource) => ({ business_id: resource.key, ...resource.body, version: resource.version }),
    ...overrides,
  };
}

type Span = { start: Date; end: Date };

/** No two parts of a widget overlap (half-open spans). */
export const noOverlappingParts: GuardDefinition<Part, Span> = {
  summarize: (part) => spanOf(part),
  conflictOf: (candidate, others) => others.find(({ summary }) => summary.start < candidate.end && summary.end > candidate.start)?.key,
  conflictMessage: (key) => `the part overlaps part '${key}'`,
};

export function partDefinition(overrides: Partial<CollectionDefinition<Part>> = {}): CollectionDefinition<Part> {
  return {
    name: 'parts',
    events: PART_EVENTS,
    scopedByParent: true,
    represent: (resource) => ({ id: resource.key, widget_id: resource.parent, ...resource.body, version: resource.version }),
    indexed: (part) => ({ span: spanOf(part) }),
    indexes: { span: ['span.end', 'span.start'] },
    ...overrides,
  };
}

function spanOf(part: Part): Span {
  return { start: new Date(part.from), end: new Date(part.until) };
}

/** Parts overlapping `[from, until)`, as a list endpoint asks. */
export function partsOverlapping(range: { from?: string; until?: string }) {
  return overlapping('span.start', 'span.end', {
    ...(range.from === undefined ? {} : { from: new Date(range.from) }),
    ...(range.until === undefined ? {} : { until: new Date(range.until) }),
  });
}

/** The part that spans `[from, until)` hours of 2024-05-01 (UTC). */
export function hours(from: number, until: number, label?: string): Part {
  const at = (hour: number) => new Date(Date.UTC(2024, 4, 1, hour)).toISOString().replace('.000Z', 'Z');
  return { from: at(from), until: at(until), ...(label === undefined ? {} : { label }) };
}

export type Widgets = ResourceCollection<Widget>;
export type Parts = ResourceCollection<Part>;

/** FerretDB v1 reports every racing conditional update as done (verified here), MongoDB makes one win. */
export async function hasAtomicConditionalUpdates(db: Db): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return info.ferretdbVersion === undefined;
}

/** A stored document as tests read it: its body and its events' data decoded from their JSON text. */
export type ReadableDocument<Body> = Omit<StoredDocument<Body>, 'body' | 'outbox'> & { body?: Body; outbox?: OutboxEntry[] };

export function readable<Body>(document: StoredDocument<Body> | null): ReadableDocument<Body> | null {
  if (document === null) return null;
  const { body, outbox, ...rest } = document;
  return {
    ...rest,
    ...(body === undefined ? {} : { body: fromJsonText(body) }),
    ...(outbox === undefined ? {} : { outbox: outbox.map(fromStoredEvent) }),
  };
}
