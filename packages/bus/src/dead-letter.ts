import type { JetStreamClient, JetStreamManager, StreamInfo } from '@nats-io/jetstream';
import { DEAD_LETTER_STREAM } from '@rm/nats-access';
import { declareStream } from './stream-declaration.js';

/** The one stream that keeps every event a consumer gave up on, for people to inspect and replay. */
export { DEAD_LETTER_STREAM };

const DEAD_LETTER_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** What is recorded for an event a consumer gave up on. */
export interface DeadLetterRecord {
  consumer: string;
  stream: string;
  subject: string;
  stream_sequence: number;
  deliveries: number;
  error: string;
  /** The parsed message, or its raw text when it was not JSON. */
  event: unknown;
  recorded_at: string;
}

export function deadLetterSubject(durable: string): string {
  return `rm.dead-letter.${durable}`;
}

export function declareDeadLetterStream(jsm: JetStreamManager): Promise<StreamInfo> {
  return declareStream(jsm, { ...DEAD_LETTER_STREAM, maxAgeMs: DEAD_LETTER_MAX_AGE_MS });
}

/** Publishes the record once: a repeat for the same message and consumer is deduplicated. */
export async function publishDeadLetter(
  js: Pick<JetStreamClient, 'publish'>,
  record: DeadLetterRecord,
): Promise<void> {
  await js.publish(deadLetterSubject(record.consumer), JSON.stringify(record), {
    msgID: `${record.stream}:${record.stream_sequence}:${record.consumer}`,
  });
}
