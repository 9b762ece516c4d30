/** What became of a received event: applied, skipped (its version was applied already, or the consumer ignores it), or failed (retried or dead-lettered). */
export type EventOutcome = 'applied' | 'skipped' | 'failed';

/** What a consumer runner reports as it goes, for metrics; the bus itself keeps none. */
export interface ConsumerMetrics {
  /** A batch's handlers ran (not its ledger write, which overlaps the next batch): how long, and what became of its events. */
  batchHandled(seconds: number, outcomes: Readonly<Record<EventOutcome, number>>): void;
  /** A batch failed as a whole: these of its events come back, or are dead-lettered. */
  batchFailed(events: number): void;
  /** An event was recorded on the dead-letter stream. */
  deadLettered(): void;
}
