import {
  DiscardPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
  type StreamSource,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { serviceStream } from '@rm/contracts';
import { StreamDeclarationError } from './errors.js';

/** Limits of a stream, in milliseconds and bytes; every one has an explicit default. */
export interface StreamLimits {
  /** How long messages stay (default 7 days): a consumer down longer than this misses events. */
  maxAgeMs?: number;
  /** How long a `msgID` is remembered for deduplication (default 2 minutes). */
  duplicateWindowMs?: number;
  /** Total size cap (default 1 GiB); the oldest messages go first. */
  maxBytes?: number;
  /** Message count cap (default 10 million). */
  maxMsgs?: number;
  /** Largest accepted message (default 1 MiB). */
  maxMsgSize?: number;
  /** Copies in a cluster (default 1). */
  replicas?: number;
}

export interface StreamOptions extends StreamLimits {
  name: string;
  subjects: string[];
  description?: string;
  /**
   * Keep at most this many messages per subject and refuse the next publish to it (JetStream's
   * discard-new per subject, error 10077): with `maxAgeMs` a counter that every client shares.
   */
  maxMsgsPerSubject?: number;
  /** Keep the messages in memory only (default: on file); for short-lived shared state. */
  inMemory?: boolean;
  /** Other streams whose messages it copies (then `subjects` is empty), each through its subject transforms. */
  sources?: StreamSource[];
}

export const DEFAULT_STREAM_LIMITS: Required<StreamLimits> = {
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  duplicateWindowMs: 2 * 60 * 1000,
  maxBytes: 1024 ** 3,
  maxMsgs: 10_000_000,
  maxMsgSize: 1024 ** 2,
  replicas: 1,
};

/** JetStream's "stream name already in use with a different configuration". */
const STREAM_NAME_EXISTS = 10058;

/**
 * Creates the stream, or brings an existing one to this configuration. Adding an identical stream
 * succeeds on the server; adding a different one fails with 10058, so we update it instead.
 */
export async function declareStream(jsm: JetStreamManager, options: StreamOptions): Promise<StreamInfo> {
  const config = streamConfig(options);
  try {
    return await jsm.streams.add(config);
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === STREAM_NAME_EXISTS)) {
      throw new StreamDeclarationError(options.name, { cause: err });
    }
  }
  try {
    // storage and retention cannot change in place: the server refuses, and we report it
    const { name: _name, ...update } = config;
    return await jsm.streams.update(options.name, update);
  } catch (err) {
    throw new StreamDeclarationError(options.name, { cause: err });
  }
}

/** Declares the stream of every event one service publishes (`RM_<SERVICE>` over `rm.<service>.>`). */
export function declareServiceStream(
  jsm: JetStreamManager,
  service: string,
  limits: StreamLimits = {},
): Promise<StreamInfo> {
  return declareStream(jsm, { ...serviceStream(service), ...limits });
}

function streamConfig(options: StreamOptions): Partial<StreamConfig> & { name: string } {
  const defaults = DEFAULT_STREAM_LIMITS;
  const {
    name,
    subjects,
    description,
    maxAgeMs = defaults.maxAgeMs,
    duplicateWindowMs = defaults.duplicateWindowMs,
    maxBytes = defaults.maxBytes,
    maxMsgs = defaults.maxMsgs,
    maxMsgSize = defaults.maxMsgSize,
    replicas = defaults.replicas,
    maxMsgsPerSubject,
    inMemory = false,
    sources,
  } = options;
  return {
    name,
    subjects,
    description,
    storage: inMemory ? StorageType.Memory : StorageType.File,
    retention: RetentionPolicy.Limits,
    ...(maxMsgsPerSubject === undefined
      ? { discard: DiscardPolicy.Old }
      : { discard: DiscardPolicy.New, discard_new_per_subject: true, max_msgs_per_subject: maxMsgsPerSubject }),
    // every duration in a stream config is in nanoseconds
    max_age: nanos(maxAgeMs),
    duplicate_window: nanos(duplicateWindowMs),
    max_bytes: maxBytes,
    max_msgs: maxMsgs,
    max_msg_size: maxMsgSize,
    num_replicas: replicas,
    ...(sources === undefined ? {} : { sources }),
  };
}
