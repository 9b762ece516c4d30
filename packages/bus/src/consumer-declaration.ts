import {
  AckPolicy,
  DeliverPolicy,
  ReplayPolicy,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { ConsumerDeclarationError } from './errors.js';

export interface ConsumerOptions {
  durable: string;
  /** Subjects to receive; all of the stream's when empty or absent. */
  filterSubjects?: string[];
  /** Time to ack before the server redelivers (default 30 s). */
  ackWaitMs?: number;
  /** Deliveries before the server gives up on a message; the default would be unlimited. */
  maxDeliver: number;
  /** Unacked messages in flight before delivery pauses (default 1000). */
  maxAckPending?: number;
}

export const DEFAULT_ACK_WAIT_MS = 30_000;
export const DEFAULT_MAX_ACK_PENDING = 1000;

/**
 * Creates a durable pull consumer with explicit acks, or updates the existing one to this
 * configuration. Never sets `inactive_threshold`: on a durable it deletes the consumer while idle.
 */
export async function declareConsumer(
  jsm: JetStreamManager,
  stream: string,
  options: ConsumerOptions,
): Promise<ConsumerInfo> {
  const config = consumerConfig(options);
  let addError: unknown;
  try {
    return await jsm.consumers.add(stream, config);
  } catch (err) {
    addError = err;
  }
  // the server refuses to add a durable that exists with another config: update it if it exists
  try {
    await jsm.consumers.info(stream, options.durable);
  } catch {
    throw new ConsumerDeclarationError(stream, options.durable, { cause: addError });
  }
  try {
    const { durable_name: _durable, ack_policy: _ack, deliver_policy: _deliver, replay_policy: _replay, ...update } =
      config;
    return await jsm.consumers.update(stream, options.durable, update);
  } catch (err) {
    throw new ConsumerDeclarationError(stream, options.durable, { cause: err });
  }
}

function consumerConfig(options: ConsumerOptions): Partial<ConsumerConfig> {
  const { durable, filterSubjects = [], ackWaitMs = DEFAULT_ACK_WAIT_MS, maxDeliver } = options;
  return {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(ackWaitMs),
    max_deliver: maxDeliver,
    max_ack_pending: options.maxAckPending ?? DEFAULT_MAX_ACK_PENDING,
    // one subject goes in `filter_subject`, which servers before 2.10 also understand; the unused
    // field is set to undefined so that an update clears it
    filter_subject: filterSubjects.length === 1 ? filterSubjects[0] : undefined,
    filter_subjects: filterSubjects.length > 1 ? filterSubjects : undefined,
  };
}
