import type { Consumer, JetStreamClient } from '@nats-io/jetstream';
import { parseEventSubject, tenantSubject, type FeedStream } from '@rm/contracts';
import { feedMessage, type FeedMessage } from './stream-tails.js';

/** Events fetched at once: what a feed holds of one stream's history while its caller reads. */
const BATCH = 100;
/**
 * How long a fetch waits for events. Its consumer delivers at once what it counted; a fetch that gets
 * nothing in this time finds events removed since (aged out, purged), and the history has no more.
 */
const FETCH_WAIT_MS = 5_000;

export interface TenantHistoryOptions {
  js: JetStreamClient;
  stream: FeedStream;
  tenant: string;
  /** The last sequence shown: the read starts after it. */
  after: number;
  /** The stream's last sequence before the read began: nothing up to it can arrive later, so the read ends there. */
  last: number;
  /**
   * A consumer the server removes once it has pulled nothing for this long: when the read has ended or
   * the feed closed (the gateway's NATS user may not delete consumers, @rm/nats-access), and while the
   * caller is slow to read, after which the read goes on with a new one.
   */
  idleMs: number;
  /** Shows a batch; resolves when the caller has read enough to take the next. */
  show(messages: FeedMessage[]): Promise<void>;
  closed(): boolean;
}

/**
 * One stream's events of a tenant after `after`, up to `last` at least, in stream order, through a filtered
 * ordered consumer fetched a batch at a time. It never waits for more than the stream held when it began:
 * it ends at `last`, when the consumer has nothing more pending, or when a fetch gets nothing.
 */
export async function readTenantHistory(options: TenantHistoryOptions): Promise<void> {
  const { js, stream, tenant, last, idleMs, show, closed } = options;
  let after = options.after;
  let more = after < last;
  while (more && !closed()) {
    const consumer = await js.consumers.get(stream.name, { filter_subjects: tenantSubject(stream, tenant), opt_start_seq: after + 1, inactive_threshold: idleMs });
    if ((await consumer.info(true)).num_pending === 0) return;
    const startedAfter = after;
    try {
      while (more && !closed()) {
        const batch = await fetchBatch(consumer, last);
        await show(batch.messages);
        after = batch.through ?? after;
        more = batch.more;
      }
    } catch (error) {
      // one gone after it delivered (idle while the caller was slow) is replaced from where it stopped; one
      // gone before is a failure: the feed ends, and its caller resumes from its last id
      if (after === startedAfter) throw error;
    }
  }
}

/** The next batch, collected before it is shown, so that no fetch is left open while the caller reads. */
async function fetchBatch(consumer: Consumer, last: number): Promise<{ messages: FeedMessage[]; through: number | undefined; more: boolean }> {
  const messages: FeedMessage[] = [];
  let through: number | undefined;
  for await (const msg of await consumer.fetch({ max_messages: BATCH, expires: FETCH_WAIT_MS })) {
    through = msg.seq;
    const subject = parseEventSubject(msg.subject);
    if (subject !== undefined) messages.push(feedMessage(msg.seq, subject, msg.string()));
    // past `last`, or nothing more now: whatever the stream gets later comes after `last`
    if (msg.seq >= last || msg.info.pending === 0) return { messages, through, more: false };
  }
  // a fetch cut short by its wait may still have left events: the next gets them, or nothing
  return { messages, through, more: through !== undefined };
}
