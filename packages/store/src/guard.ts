import { Binary, BSON, type Db, type Filter } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { BulkWrites } from './bulk-writes.js';
import type { DocumentLocks } from './document-locks.js';
import { documentId, fromJsonText, lockKey, type JsonText, type Scope } from './document.js';
import { ConcurrentWriteError, ResourceConflictError, TooManyItemsError } from './errors.js';
import { createGroupedInsert } from './grouped-inserts.js';
import type { ItemWrite, ItemWriter } from './item-writes.js';

/**
 * An invariant over the items of one parent (for example: no two availabilities of an employee
 * overlap). MongoDB makes single documents atomic, nothing more; so the write that commits must hold
 * the data the rule is checked on. That is the parent's guard document: it keeps each item's
 * `summary` (what the rule needs of it), and a write commits by updating the guard, conditional on its
 * version, with the new summaries and the item writes as an intent. The intent is then applied to the
 * item documents. A writer that finds an intent not yet applied (its writer crashed) applies it
 * first; maintenance does the same for guards nobody writes to. Applying an intent twice changes
 * nothing (see ItemWrite), so rolling forward is always safe.
 */
export interface GuardDefinition<Body, Summary> {
  /** What the rule needs of an item, kept in the guard (dates, numbers, short strings). */
  summarize(body: Body): Summary;
  /** The key of an item the candidate conflicts with, if any; `others` are the parent's other items. */
  conflictOf(candidate: Summary, others: readonly GuardItem<Summary>[]): string | undefined;
  /** The problem's detail for a conflict with `conflictingKey`. */
  conflictMessage(conflictingKey: string): string;
  /** Live items one parent may hold (default MAX_GUARD_ITEMS). */
  maxItems?: number;
}

/**
 * Live items of one parent, at most: the guard holds every one's key and summary (about 90 bytes packed for an
 * availability's span) beside one commit's intent (at most 8 MiB) in a document of at most 16 MiB, which a
 * write past about 80,000 would outgrow (and fail without an answer the caller could act on).
 */
export const MAX_GUARD_ITEMS = 50_000;

/** The guard of sub-resources that need no rule among themselves, only their parent (see CollectionDefinition.parent). */
export const NO_INVARIANT: GuardDefinition<unknown, null> = {
  summarize: () => null,
  conflictOf: () => undefined,
  conflictMessage: (key) => `conflicts with '${key}'`,
};

export interface GuardItem<Summary> {
  key: string;
  summary: Summary;
}

interface GuardIntent {
  id: string;
  writes: ItemWrite<unknown>[];
}

/**
 * The items and the intents are kept packed, each as one BSON binary value: FerretDB reads and
 * rewrites a document value by value, so an employee's 500 availabilities as 500 sub-documents made
 * every commit 15× slower than the same bytes as one value (bench: availability).
 */
export interface GuardDocument {
  /** `<collection>/<tenant>/<parent>`. */
  _id: string;
  collection: string;
  version: number;
  /** `{ items: GuardItem[] }`, packed. */
  items: Binary;
  /** `{ intents: GuardIntent[] }`, packed: the writes the last commit made, applied or not (applying them again is harmless). */
  intents?: Binary;
  /** The collection, while `intents` are there: maintenance finds them by this equality (see finishStale). */
  intents_of?: string;
  /** Set by a parent's cascade (see GuardedCommit): the next write must check that the parent is there again. */
  sealed?: true;
  updated_at: Date;
}

/** What a writer knows of a guard: from its last commit in this process, or read. */
interface GuardState {
  version: number;
  items: GuardItem<unknown>[];
  sealed: boolean;
  /** Read from the database for this commit, not remembered from an earlier one. */
  fresh: boolean;
}

/** What a decision is told of the guard it is taken under. */
export interface GuardView {
  /** The parent may be gone: no guard yet, or one sealed by the parent's cascade. */
  parentMayBeGone: boolean;
  /** Whether a live item of the parent has this key (always false without a guard, which knows none). */
  holds(key: string): boolean;
}

export const GUARDS_COLLECTION = 'guards';

/** The index maintenance finds guards with intents by (see finishStale). */
export const STALE_INTENTS_INDEX = { key: { intents_of: 1, updated_at: 1 }, name: 'stale_intents_of', sparse: true };

/** Attempts before a write that keeps losing the guard to other writers answers 409. */
const MAX_GUARD_ATTEMPTS = 8;
/** Intents this process applied, so that the next writer of the guard does not apply them again. */
const SETTLED_MEMORY = 10_000;
/** Guards remembered after this process committed them, so that its next commit need not read them first. */
const REMEMBERED_GUARDS = 1_000;

const pack = (value: Record<string, unknown>) => new Binary(BSON.serialize(value, { ignoreUndefined: true }));
const unpack = <T>(binary: Binary | undefined, field: string): T[] => (binary === undefined ? [] : (BSON.deserialize(binary.buffer)[field] as T[]));

/**
 * Commits a decision's writes through the scope's guard and returns them: once the guard holds their
 * intent they are applied, by this writer or by whoever finds the intent first. A `seal` commit moves
 * the guard's version on even when it writes nothing, and marks it sealed, so that every decision
 * taken before it (on a parent that was still there) must be taken again and the next one checks the
 * parent: a parent's cascade commits with it.
 */
export type GuardedCommit<Body> = (
  scope: Scope,
  decide: (guard: GuardView) => Promise<ItemWrite<Body>[]>,
  options?: { seal?: boolean },
) => Promise<ItemWrite<Body>[]>;

export interface Guard<Body> {
  commit: GuardedCommit<Body>;
  /**
   * Applies and clears the intents of the collection's guards untouched since `cutoff` (maintenance);
   * returns how many of them changed anything: those a writer had not finished.
   */
  finishStale(cutoff: Date): Promise<number>;
}

export function createGuard<Body, Summary>(
  db: Db,
  options: {
    collection: string;
    entity: string;
    /** What a problem calls the parent: `employee`. */
    parentEntity: string;
    definition: GuardDefinition<Body, Summary>;
    writer: ItemWriter<Body>;
    locks: DocumentLocks;
    bulk: BulkWrites;
  },
): Guard<Body> {
  const { collection, entity, parentEntity, definition, writer, locks, bulk } = options;
  const guards = db.collection<GuardDocument>(GUARDS_COLLECTION);
  // the first guards of parents written side by side (an import's lines) share their statements
  const insertGuard = createGroupedInsert(guards, bulk);
  const settled = new Set<string>();
  const remembered = new Map<string, GuardState>();
  const guardId = (scope: Scope) => `${collection}/${documentId({ tenant: scope.tenant, key: scope.parent ?? '' })}`;
  // Guard ids are not document ids: the prefix keeps the two apart in the shared locks.
  const lockOf = (id: string) => `guard:${id}`;

  /** Applies an intent's writes; true if any took effect now (its writer had not finished it). */
  async function applyIntent(intent: GuardIntent): Promise<boolean> {
    if (settled.has(intent.id)) return false;
    const writes = intent.writes as ItemWrite<Body>[];
    const changed = await locks.exclusiveAll(
      writes.map((write) => lockKey(collection, write._id)),
      async () => (writes.length === 1 ? writer.applyOne(writes[0] as ItemWrite<Body>) : (await writer.applyMany(writes)).length > 0),
    );
    if (settled.size >= SETTLED_MEMORY) settled.clear();
    settled.add(intent.id);
    return changed;
  }

  /** The guard as the database holds it, its last commit's intents applied; null when there is none. */
  async function read(id: string): Promise<GuardState | null> {
    const document = await guards.findOne({ _id: id });
    if (document === null) return null;
    for (const intent of unpack<GuardIntent>(document.intents, 'intents')) await applyIntent(intent);
    return { version: document.version, items: unpack(document.items, 'items'), sealed: document.sealed === true, fresh: true };
  }

  function remember(id: string, state: GuardState): void {
    remembered.delete(id);
    remembered.set(id, state);
    if (remembered.size > REMEMBERED_GUARDS) remembered.delete(remembered.keys().next().value as string);
  }

  /** The guard's items after the writes, refusing a live item whose summary conflicts with another's, or one too many. */
  function itemsAfter(scope: Scope, items: readonly GuardItem<unknown>[], writes: readonly ItemWrite<Body>[]): GuardItem<unknown>[] {
    const written = new Set(writes.map((write) => write.next.key));
    const kept = (items as GuardItem<Summary>[]).filter((item) => !written.has(item.key));
    for (const { next } of writes) {
      if (next.deleted === true) continue;
      const summary = definition.summarize(fromJsonText<Body>(next.body as JsonText<Body>));
      const conflicting = definition.conflictOf(summary, kept);
      if (conflicting !== undefined) throw new ResourceConflictError(definition.conflictMessage(conflicting), conflicting);
      kept.push({ key: next.key, summary });
    }
    const maxItems = definition.maxItems ?? MAX_GUARD_ITEMS;
    if (kept.length > maxItems && kept.length > items.length) {
      throw new TooManyItemsError(entity, parentEntity, scope.parent ?? '', maxItems);
    }
    return kept;
  }

  /** Stores the new guard, if the database still holds the version it was decided on; false if not. */
  async function commitGuard(id: string, current: GuardState | null, next: Omit<GuardDocument, '_id' | 'collection' | 'version'>): Promise<boolean> {
    if (current === null) return insertGuard({ _id: id, collection, version: 1, ...next });
    const set = Object.fromEntries(Object.entries({ ...next, version: current.version + 1 }).filter(([, value]) => value !== undefined));
    const unset = Object.fromEntries((['intents', 'intents_of', 'sealed'] as const).filter((field) => next[field] === undefined).map((field) => [field, '' as const]));
    const { matchedCount } = await guards.updateOne({ _id: id, version: current.version } as Filter<GuardDocument>, {
      $set: set,
      ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}),
    });
    return matchedCount === 1;
  }

  async function commit(scope: Scope, decide: (guard: GuardView) => Promise<ItemWrite<Body>[]>, { seal = false } = {}): Promise<ItemWrite<Body>[]> {
    const id = guardId(scope);
    return locks.exclusive(lockOf(id), async () => {
      let current = remembered.get(id) ?? (await read(id));
      for (let attempt = 0; attempt < MAX_GUARD_ATTEMPTS; attempt += 1) {
        let writes: ItemWrite<Body>[];
        let items: GuardItem<unknown>[];
        try {
          // Decided on the items as the guard's last commit left them.
          const held = current?.items ?? [];
          const holds = (key: string) => held.some((item) => item.key === key);
          writes = await decide({ parentMayBeGone: current === null || current.sealed, holds });
          items = itemsAfter(scope, held, writes);
        } catch (error) {
          // a refusal decided on a remembered guard is only final once the database confirms it
          if (current?.fresh === false) {
            remembered.delete(id);
            current = await read(id);
            continue;
          }
          throw error;
        }
        if (writes.length === 0 && !seal) return writes;
        const intents: GuardIntent[] = writes.length === 0 ? [] : [{ id: uuidv7(), writes: writes as ItemWrite<unknown>[] }];
        const committed = await commitGuard(id, current, {
          items: pack({ items }),
          ...(intents.length === 0 ? {} : { intents: pack({ intents }), intents_of: collection }),
          ...(seal ? { sealed: true as const } : {}),
          updated_at: new Date(),
        });
        if (!committed) {
          remembered.delete(id);
          current = await read(id);
          continue;
        }
        const version = (current?.version ?? 0) + 1;
        remember(id, { version, items, sealed: seal, fresh: false });
        for (const intent of intents) await applyIntent(intent);
        // Applied, an intent of many writes goes: whoever found it later (maintenance, another replica's
        // next commit) would try each write again, a statement each. One write is cheaper tried again.
        // Best effort: the writes are done, and an intent left behind is only tried again, harmlessly.
        if (writes.length > 1) {
          await guards.updateOne({ _id: id, version } as Filter<GuardDocument>, { $unset: { intents: '', intents_of: '' } }).catch(() => undefined);
        }
        return writes;
      }
      remembered.delete(id);
      throw new ConcurrentWriteError(entity, scope.parent ?? scope.tenant);
    });
  }

  async function finishStale(cutoff: Date): Promise<number> {
    // by `intents_of`, an equality FerretDB pushes down to its index (`collection` matched every guard of it)
    const stale = await guards.find({ intents_of: collection, updated_at: { $lt: cutoff } } as Filter<GuardDocument>, { projection: { _id: 1 } }).toArray();
    let rolledForward = 0;
    for (const { _id } of stale) {
      await locks.exclusive(lockOf(_id), async () => {
        const guard = await guards.findOne({ _id });
        if (guard?.intents === undefined) return;
        for (const intent of unpack<GuardIntent>(guard.intents, 'intents')) if (await applyIntent(intent)) rolledForward += 1;
        // Only if nobody committed meanwhile: a newer intent is that writer's to finish.
        await guards.updateOne({ _id, version: guard.version } as Filter<GuardDocument>, { $unset: { intents: '', intents_of: '' } });
      });
    }
    return rolledForward;
  }

  return { commit, finishStale };
}
