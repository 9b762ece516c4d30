import type { Cursors } from '@rm/contracts';
import { invalidCursor, type CursorCodec } from './cursor.js';

/** Where a page starts, relative to an item key; no bound is the first page. */
export type KeysetBound<K> = { after: K } | { from: K } | { before: K };

/**
 * One read of a keyset page, to be turned into a query: `after` is `$gt`, `from` is `$gte`,
 * `before` is `$lt`; sort by the key, descending when `descending`; at most `limit` items.
 */
export interface KeysetQuery<K> {
  bound: KeysetBound<K> | undefined;
  descending: boolean;
  limit: number;
}

export interface PageCursorsOptions<T, K> {
  items: readonly T[];
  key: (item: T) => K;
  hasMoreAfter: boolean;
  hasMoreBefore: boolean;
  codec: CursorCodec;
  /** Binds cursors to one list (for example tenant and parent id); a cursor of another list is refused. */
  scope?: string;
}

/**
 * `{self, next, prev}` of a page (spec: Paging): `self` reads the same page again (absent without
 * items), `next` the page after it (absent on the last), `prev` the page before (absent on the first).
 */
export function pageCursors<T, K>({ items, key, hasMoreAfter, hasMoreBefore, codec, scope }: PageCursorsOptions<T, K>): Cursors {
  const first = items[0];
  const last = items[items.length - 1];
  if (first === undefined || last === undefined) return {};
  const encode = (bound: KeysetBound<K>) => codec.encode(scope === undefined ? bound : { ...bound, scope });
  const cursors: Cursors = { self: encode({ from: key(first) }) };
  if (hasMoreAfter) cursors.next = encode({ after: key(last) });
  if (hasMoreBefore) cursors.prev = encode({ before: key(first) });
  return cursors;
}

/** The bound a cursor from pageCursors stands for; a 400 on field `cursor` if it is not one of ours. */
export function decodePageCursor<K>(
  codec: CursorCodec,
  cursor: string,
  { isKey, scope }: { isKey: (value: unknown) => value is K; scope?: string },
): KeysetBound<K> {
  const payload = codec.decode(cursor);
  if (payload.scope !== scope) return invalidCursor();
  const kinds = (['after', 'from', 'before'] as const).filter((kind) => kind in payload);
  const [kind] = kinds;
  if (kind === undefined || kinds.length > 1 || !isKey(payload[kind])) return invalidCursor();
  return { [kind]: payload[kind] } as KeysetBound<K>;
}

export function isStringKey(value: unknown): value is string {
  return typeof value === 'string';
}

export interface PaginateOptions<T, K> {
  /** The `cursor` query parameter; absent for the first page. */
  cursor: string | undefined;
  limit: number;
  codec: CursorCodec;
  key: (item: T) => K;
  isKey: (value: unknown) => value is K;
  scope?: string;
  /** Runs one keyset query (see KeysetQuery), already scoped to the tenant. */
  fetch: (query: KeysetQuery<K>) => Promise<T[]>;
}

/**
 * Reads one page by keyset and builds its cursors: fetches `limit + 1` to know whether more follow,
 * and probes one item on the other side so `prev` is absent on the first page even when reached
 * through a cursor.
 */
export async function paginate<T, K>({ cursor, limit, codec, key, isKey, scope, fetch }: PaginateOptions<T, K>): Promise<{ items: T[]; cursors: Cursors }> {
  const bound = cursor === undefined ? undefined : decodePageCursor(codec, cursor, { isKey, scope });
  const descending = bound !== undefined && 'before' in bound;
  const rows = await fetch({ bound, descending, limit: limit + 1 });
  const hasMoreInReadDirection = rows.length > limit;
  const items = rows.slice(0, limit);
  if (descending) items.reverse();
  const first = items[0];
  const last = items[items.length - 1];
  if (first === undefined || last === undefined) return { items, cursors: {} };

  const exists = async (probe: KeysetBound<K>) => (await fetch({ bound: probe, descending: 'before' in probe, limit: 1 })).length > 0;
  const hasMoreAfter = descending ? await exists({ after: key(last) }) : hasMoreInReadDirection;
  const hasMoreBefore = descending ? hasMoreInReadDirection : bound !== undefined && (await exists({ before: key(first) }));
  return { items, cursors: pageCursors({ items, key, hasMoreAfter, hasMoreBefore, codec, scope }) };
}
