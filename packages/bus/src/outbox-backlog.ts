import type { PendingEvents, PublishedEvents } from '@rm/contracts';

/** Events waiting in outboxes, as far as a relay has seen them. */
export interface OutboxBacklog {
  /** Events written and not yet published and cleared. */
  events: number;
  /** When the oldest of them occurred (ms since the epoch); undefined when none waits. */
  oldestOccurredAt: number | undefined;
}

/** A document's key across the store's collections, for the relay's maps. */
export const documentKey = ({ collection, documentId }: { collection: string; documentId: string }) => `${collection}\u0000${documentId}`;

/**
 * The relay's view of what waits in the documents, for metrics, without reading the database: every
 * hand-over and every sweep shows a document's whole outbox, and each clear removes what it published.
 * It includes what the relay leaves in the documents while publishing fails. Documents that another
 * replica cleared drop out at the end of the next complete sweep. Past `maxDocuments` documents, new
 * ones are not counted (the count is then a floor).
 */
export function createBacklogView(maxDocuments: number) {
  const documents = new Map<string, { events: { id: string; occurredAt: number }[]; seenAt: number }>();
  // a sequence, not the clock: a hand-over in the sweep's first millisecond must count as after its start
  let sequence = 0;
  let sweepStartedAt: number | undefined;

  return {
    /** A document's waiting events, oldest first (`isCleared`: those this relay cleared already, a late read). */
    seen(pending: PendingEvents, isCleared: (eventId: string) => boolean): void {
      const name = documentKey(pending);
      if (!documents.has(name) && documents.size >= maxDocuments) return;
      const events = pending.events
        .filter((event) => !isCleared(event.id))
        .map((event) => ({ id: event.id, occurredAt: Date.parse(event.occurred_at) }));
      if (events.length === 0) documents.delete(name);
      else documents.set(name, { events, seenAt: (sequence += 1) });
    },
    cleared(published: readonly PublishedEvents[]): void {
      for (const entry of published) {
        const name = documentKey(entry);
        const document = documents.get(name);
        if (document === undefined) continue;
        const ids = new Set(entry.eventIds);
        document.events = document.events.filter((event) => !ids.has(event.id));
        if (document.events.length === 0) documents.delete(name);
      }
    },
    sweepStarted(): void {
      sweepStartedAt = sequence += 1;
    },
    /** A sweep read every waiting document: those it did not see, and no hand-over showed since, wait no more. */
    sweepCompleted(): void {
      if (sweepStartedAt === undefined) return;
      for (const [name, document] of documents) if (document.seenAt < sweepStartedAt) documents.delete(name);
      sweepStartedAt = undefined;
    },
    backlog(): OutboxBacklog {
      let events = 0;
      let oldestOccurredAt: number | undefined;
      for (const document of documents.values()) {
        events += document.events.length;
        const first = document.events[0]?.occurredAt;
        if (first !== undefined && (oldestOccurredAt === undefined || first < oldestOccurredAt)) oldestOccurredAt = first;
      }
      return { events, oldestOccurredAt };
    },
  };
}
