import type { EventEnvelope } from './events.js';

/**
 * The outbox port between the store (@rm/store), which writes each event in the same document write
 * as its state change, and the relay (@rm/bus), which publishes and then clears it. Neither package
 * knows the other; the document format stays in the store.
 */

/**
 * An event waiting in a document's outbox, with the subject it goes out on and the W3C trace context
 * (`traceparent`, `tracestate`) of the write that raised it, if one was traced: the relay sends that
 * as message headers, so it never becomes part of the event.
 */
export type OutboxEntry = EventEnvelope & { subject: string; trace?: TraceHeaders };

/** Trace context by header name, as a propagator injects it. */
export type TraceHeaders = Record<string, string>;

/** A stored document's waiting events, oldest first. */
export interface PendingEvents {
  collection: string;
  documentId: string;
  events: OutboxEntry[];
}

/** Events the broker has stored, to clear from their document: the oldest waiting ones, in order. */
export interface PublishedEvents {
  collection: string;
  documentId: string;
  eventIds: string[];
}

export type CommitListener = (committed: PendingEvents) => void;

export interface OutboxSource {
  /** Every document with waiting events: what a crash or a failed publish left behind. */
  pending(): AsyncIterable<PendingEvents>;
  /** Clears published events; several documents in a few statements. */
  clear(published: readonly PublishedEvents[]): Promise<void>;
  /**
   * Calls `listener` after every committed write with the waiting events of the document it wrote,
   * so that they are published without being read back. Returns the unsubscribe function.
   */
  onCommit(listener: CommitListener): () => void;
}
