import { jetstream } from '@nats-io/jetstream';
import { connectTestNats } from './test-nats.js';

export interface RecordedEvents<Event> {
  /** Every message so far, with its subject, in the stream's order. */
  received: { subject: string; event: Event }[];
  close(): Promise<void>;
}

/**
 * Every message of `stream` on `subject` (wildcards allowed) from the stream's start, duplicates
 * included: an ordered consumer sees each message as published, nothing deduplicated or skipped by
 * version. The stream must exist (the service declares it when it starts). On the run's nats-server, or
 * the one at `natsUrl`.
 */
export async function recordEvents<Event = unknown>(stream: string, subject: string, natsUrl?: string): Promise<RecordedEvents<Event>> {
  const nats = await connectTestNats(natsUrl === undefined ? {} : { url: natsUrl });
  const consumer = await jetstream(nats.nc).consumers.get(stream, { filter_subjects: [subject] });
  const messages = await consumer.consume();
  const received: RecordedEvents<Event>['received'] = [];
  void (async () => {
    for await (const message of messages) received.push({ subject: message.subject, event: message.json<Event>() });
  })();
  return {
    received,
    async close() {
      await messages.close();
      await nats.close();
    },
  };
}
