import type { Collection } from 'mongodb';
import { ConcurrentWriteError, createDocumentLocks, isDuplicateKeyError, orUnavailable, type Store } from '@rm/store';
import type { Span } from '../domain/deployment.js';

/** One deployment's hold on a resource: committed, or pending while the write `write` is under way. */
interface Entry extends Span {
  deployment: string;
  write?: string;
  since: Date;
}

/** The calendar of one employee or transport resource of a tenant. */
interface CalendarDocument {
  /** `<tenant>|<entity>|<id>`. */
  _id: string;
  version: number;
  entries: Entry[];
}

/** A resource a deployment takes, by the entity of its owner's events. */
export interface CalendarKey {
  tenant: string;
  entity: 'employee' | 'transport-resource';
  id: string;
}

/**
 * The calendars of the resources deployments take (DESIGN §8: no overlap). A deployment's write holds
 * a pending entry on every calendar before it commits, and only if no other deployment holds an
 * overlapping one there; after the commit (or a failure) it reconciles each calendar with what is
 * committed. A pending entry whose write has not reconciled it within STALE_PENDING_MS (its writer
 * crashed) is reconciled by the next write that meets it; so is a committed entry in the way, which
 * a later write of its deployment that moved it elsewhere, or a crash, may have left behind.
 */
export interface Calendars {
  /**
   * Holds `span` for the deployment's write; with `check`, only if no other deployment holds an
   * overlapping span there, returning that one's id otherwise.
   */
  hold(key: CalendarKey, deployment: string, write: string, span: Span, options: { check: boolean }): Promise<string | undefined>;
  /** Drops the write's pending entry and holds what the deployment now has committed on this resource (maybe nothing). */
  reconcile(key: CalendarKey, deployment: string, write: string | undefined): Promise<void>;
}

/** The span a deployment's committed state takes the resource for; none when it does not take it (or is gone). */
export type CommittedSpan = (key: CalendarKey, deployment: string) => Promise<Span | undefined>;

export const STALE_PENDING_MS = 60_000;

/** What a change of a calendar decides: its new entries, or a result that leaves it as it is. */
type Change<T> = { entries: Entry[] } | { result: T };
const MAX_ATTEMPTS = 8;

const calendarId = ({ tenant, entity, id }: CalendarKey) => `${tenant}|${entity}|${id}`;
const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

export function createCalendars(store: Store, committedSpan: CommittedSpan): Calendars {
  const calendars: Collection<CalendarDocument> = store.plainCollection<CalendarDocument>('calendars', []);
  // FerretDB's conditional updates are not atomic across connections (PRACTICES): within one process
  // the writes of a calendar take turns; MongoDB's version check orders those of several replicas
  const locks = createDocumentLocks();

  /** Changes a calendar with `change` (given its entries, returns the new ones or a result), conditional on its version. */
  async function update<T>(key: CalendarKey, change: (entries: Entry[]) => Promise<Change<T>>): Promise<T | undefined> {
    const _id = calendarId(key);
    return locks.exclusive(_id, async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        const current = await orUnavailable(() => calendars.findOne({ _id }));
        const changed = await change(current?.entries ?? []);
        if ('result' in changed) return changed.result;
        const version = current?.version ?? 0;
        const written = await orUnavailable(async () => {
          if (current === null) {
            try {
              await calendars.insertOne({ _id, version: 1, entries: changed.entries });
              return true;
            } catch (error) {
              // another replica created it first: read it again
              if (isDuplicateKeyError(error)) return false;
              throw error;
            }
          }
          const next = { version: version + 1, entries: changed.entries };
          const { modifiedCount } = await calendars.updateOne({ _id, version }, { $set: next });
          return modifiedCount === 1;
        });
        if (written) return undefined;
      }
      throw new ConcurrentWriteError('calendar', _id);
    });
  }

  /** Without the write's pending entry and the deployment's committed one, plus what it has committed now. */
  async function reconciled(key: CalendarKey, entries: Entry[], deployment: string, write: string | undefined): Promise<Entry[]> {
    const others = entries.filter((entry) => entry.deployment !== deployment || (entry.write !== undefined && entry.write !== write));
    const span = await committedSpan(key, deployment);
    return span === undefined ? others : [...others, { deployment, since: new Date(), ...span }];
  }

  /** The entries with every stale pending one reconciled: its writer crashed before it could. */
  async function withoutStale(key: CalendarKey, entries: Entry[]): Promise<Entry[]> {
    let result = entries;
    for (const entry of entries) if (isStale(entry)) result = await reconciled(key, result, entry.deployment, entry.write);
    return result;
  }

  return {
    async hold(key, deployment, write, span, { check }) {
      const conflicts = (entries: Entry[]) => entries.filter((entry) => entry.deployment !== deployment && overlaps(entry, span));
      return update<string>(key, async (stored) => {
        let entries = await withoutStale(key, stored);
        if (check) {
          // A committed entry is what its deployment had committed when it was reconciled; a later write
          // of it that moved it elsewhere (or a crash, or its delete) may have left it behind. One in the
          // way is checked against what the deployment has committed now; pending entries are writes
          // under way, and hold.
          for (const entry of conflicts(entries)) {
            if (entry.write === undefined) entries = await reconciled(key, entries, entry.deployment, undefined);
          }
          const [conflict] = conflicts(entries);
          if (conflict !== undefined) return { result: conflict.deployment };
        }
        return { entries: [...entries, { deployment, write, since: new Date(), ...span }] };
      });
    },
    async reconcile(key, deployment, write) {
      await update<never>(key, async (entries) => ({ entries: await reconciled(key, entries, deployment, write) }));
    },
  };
}

/** A pending entry whose writer has not come back: it no longer holds anything. */
function isStale(entry: Entry): boolean {
  return entry.write !== undefined && Date.now() - entry.since.getTime() > STALE_PENDING_MS;
}
