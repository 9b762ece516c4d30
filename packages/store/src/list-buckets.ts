import { StoreUsageError } from './errors.js';

/**
 * Lists are read bucket by bucket, each bucket by an equality that an index serves, so that a page of
 * 100 reads about 100 documents whatever the list holds: FerretDB pushes neither a range, nor a sort,
 * nor a limit down, and read a whole tenant for every page. A resource's place in its list is its key's
 * 16-bit hash, then its key (immutable, so pages stay stable while others write); a document stores the
 * first 4, 8 and 12 bits of that hash (`pages.l4`, …), which cut its list into 16, 256 and 4,096
 * buckets. A read chooses how fine to cut from what it has seen of the list's size.
 */
const HASH_BITS = 16;
const LAST_HASH = 2 ** HASH_BITS - 1;
/** Bits of the hash that name a bucket; 0 is the whole list. */
export const BUCKET_LEVELS = [0, 4, 8, 12] as const;
export type BucketLevel = (typeof BUCKET_LEVELS)[number];
/**
 * What a statement costs, in documents read (FerretDB on PostgreSQL: a statement about 2 ms, a
 * document about 0.17 ms), when a read weighs fewer larger buckets against more smaller ones.
 */
const STATEMENT_COST_IN_DOCUMENTS = 12;

const hashOf = (key: string) => mixed(fnv1a(key)) >>> (32 - HASH_BITS);
const hashAt = (position: string) => Number.parseInt(position.slice(0, 4), 16);
/** What listPosition makes: the key's hash in four hex digits, then the key. */
const LIST_POSITION = /^[0-9a-f]{4}./s;

/** 32-bit FNV-1a of a key. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * MurmurHash3's finalizer. FNV-1a ends with one multiplication, so keys that differ only in their last
 * character (e01, e02, …) got hashes a fixed stride apart, in key order and in neighbouring buckets;
 * mixing every bit into the high ones spreads them.
 */
function mixed(hash: number): number {
  let mixing = hash ^ (hash >>> 16);
  mixing = Math.imul(mixing, 0x85ebca6b);
  mixing ^= mixing >>> 13;
  mixing = Math.imul(mixing, 0xc2b2ae35);
  return (mixing ^ (mixing >>> 16)) >>> 0;
}

/** Where a resource stands in its list: lists are read in the order of these strings. */
export function listPosition(key: string): string {
  return hashOf(key).toString(16).padStart(4, '0') + key;
}

/**
 * The first of `${prefix}0`, `${prefix}1`, … whose list position lies after that of `after` and before that
 * of `before` (either may be absent): where a test wants a new resource to land in a list.
 */
export function keyBetween(prefix: string, after: string | undefined, before: string | undefined): string {
  for (let n = 0; n < 100_000; n += 1) {
    const key = `${prefix}${n}`;
    if ((after === undefined || listPosition(key) > listPosition(after)) && (before === undefined || listPosition(key) < listPosition(before))) return key;
  }
  throw new Error(`no key ${prefix}… lies between ${after} and ${before}`);
}

/** Keys in the order their list reads them. */
export function inListOrder(keys: readonly string[]): string[] {
  return keys.map((key) => ({ key, position: listPosition(key) })).sort((a, b) => (a.position < b.position ? -1 : 1)).map(({ key }) => key);
}

/** The document field that holds a level's bucket. */
export const bucketField = (level: Exclude<BucketLevel, 0>) => `pages.l${level}`;

/** What a document stores of its buckets (`pages`). */
export function bucketsOf(key: string): Record<string, number> {
  const hash = hashOf(key);
  return Object.fromEntries(BUCKET_LEVELS.flatMap((level) => (level === 0 ? [] : [[`l${level}`, hash >>> (HASH_BITS - level)]])));
}

/** One read of a list, as store.list takes it: positions beyond the bound, in order or reversed. */
export interface PositionRead {
  bound: { after: string } | { from: string } | { before: string } | undefined;
  descending: boolean;
  limit: number;
}

/**
 * The level whose buckets cost least to read `wanted` items from a list of about `size`, starting at hash
 * `next` (only the part of its bucket beyond it counts): each bucket read costs a statement and its documents.
 */
function cheapestLevel(size: number, wanted: number, next: number, descending: boolean): BucketLevel {
  const cost = (level: BucketLevel) => {
    const perBucket = Math.max(size / 2 ** level, 0.5);
    const span = 2 ** (HASH_BITS - level);
    const ahead = (descending ? (next % span) + 1 : span - (next % span)) / span;
    const reads = 1 + Math.ceil(Math.max(0, wanted - perBucket * ahead) / perBucket);
    return Math.min(reads, 2 ** level) * (STATEMENT_COST_IN_DOCUMENTS + perBucket);
  };
  return BUCKET_LEVELS.reduce((best, level) => (cost(level) < cost(best) ? level : best));
}

/**
 * Reads `limit` items beyond the bound, in position order (reversed when `descending`), one bucket after
 * another from the bound's own: `fetchBucket` returns a bucket's items (level 0: the whole list).
 * `size` is what is known of the list's size; returns the items and what the buckets read say of it.
 */
export async function readByBuckets<T>(
  { bound, descending, limit }: PositionRead,
  size: number,
  positionOf: (item: T) => string,
  fetchBucket: (level: BucketLevel, bucket: number) => Promise<T[]>,
): Promise<{ items: T[]; size: number }> {
  const [kind, boundary] = bound === undefined ? [undefined, ''] : (Object.entries(bound)[0] as [string, string]);
  // a bare key has no hash to start from: the buckets would be read for ever
  if (kind !== undefined && !LIST_POSITION.test(boundary)) throw new StoreUsageError(`a list is read from a list position (listPosition(key)), not from '${boundary}'`);
  const beyondBound = (position: string) =>
    kind === undefined || (kind === 'after' ? position > boundary : kind === 'from' ? position >= boundary : position < boundary);
  const found: { position: string; item: T }[] = [];
  // the first hash not read yet, in the direction of reading
  let next = kind === undefined ? (descending ? LAST_HASH : 0) : hashAt(boundary);
  let estimate = size;
  for (;;) {
    const level = cheapestLevel(estimate, limit - found.length, next, descending);
    const span = 2 ** (HASH_BITS - level);
    const bucket = Math.floor(next / span);
    const items = await fetchBucket(level, bucket);
    estimate = items.length * 2 ** level;
    const unread = (position: string) => (descending ? hashAt(position) <= next : hashAt(position) >= next);
    const fresh = items
      .map((item) => ({ position: positionOf(item), item }))
      .filter(({ position }) => unread(position) && beyondBound(position))
      .sort((a, b) => (a.position < b.position ? -1 : 1) * (descending ? -1 : 1));
    found.push(...fresh.slice(0, limit - found.length));
    const [low, high] = [bucket * span, bucket * span + span - 1];
    if (found.length >= limit || (descending ? low === 0 : high === LAST_HASH)) break;
    next = descending ? low - 1 : high + 1;
  }
  return { items: found.map(({ item }) => item), size: estimate };
}
