export { connectNats, natsAccess, type NatsAccess, type NatsConnectionOptions } from './nats-connection.js';
export {
  declareStream,
  declareServiceStream,
  DEFAULT_STREAM_LIMITS,
  type StreamLimits,
  type StreamOptions,
} from './stream-declaration.js';
export {
  declareConsumer,
  DEFAULT_ACK_WAIT_MS,
  DEFAULT_MAX_ACK_PENDING,
  type ConsumerOptions,
} from './consumer-declaration.js';
export {
  DEAD_LETTER_STREAM,
  deadLetterSubject,
  declareDeadLetterStream,
  type DeadLetterRecord,
} from './dead-letter.js';
export { publishEvents, type PublishEventsOptions } from './event-publishing.js';
export { createOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';
export type { OutboxBacklog } from './outbox-backlog.js';
export type { ConsumerMetrics, EventOutcome } from './consumer-metrics.js';
export { createConsumerRunner, type ConsumerRunner, type ConsumerRunnerOptions, type ConsumerRunnerSettings } from './consumer-runner.js';
export type { BatchCompletion, BatchEventHandler, EventContext, EventHandler, EventHandling, IgnoredEvents } from './event-batch.js';
export {
  BusError,
  ConsumerDeclarationError,
  InvalidEventError,
  NatsConnectError,
  PermanentEventError,
  StreamDeclarationError,
} from './errors.js';
