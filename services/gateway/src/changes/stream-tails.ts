import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '@rm/service-kit';
import { FEED_STREAMS, parseEventSubject, type FeedStream } from '@rm/contracts';

/** One event of a feed stream, as the feed needs it: where it is, what it is, and its `data` line. */
export interface FeedMessage {
  seq: number;
  entity: string;
  action: string;
  /** The event as the feed shows it (the envelope without its tenant), serialised once however many feeds show it. */
  data(): string;
}

/** A FeedMessage of a stream message whose subject is an event's. */
export function feedMessage(seq: number, subject: { entity: string; action: string }, envelope: string): FeedMessage {
  let data: string | undefined;
  return {
    seq,
    entity: subject.entity,
    action: subject.action,
    data() {
      if (data === undefined) {
        const { tenant: _tenant, ...event } = JSON.parse(envelope) as Record<string, unknown>;
        data = JSON.stringify(event);
      }
      return data;
    },
  };
}

export type FeedListener = (message: FeedMessage) => void;

/** The live end of one stream, read once per replica and handed to the open feeds of each tenant. */
export interface StreamTail {
  readonly stream: FeedStream;
  /** The last sequence handed to the listeners: every event up to it has reached every listener. */
  delivered(): number;
  /** Hands each new event of the tenant to the listener, in stream order, until the returned function is called. */
  listen(tenant: string, listener: FeedListener): () => void;
}

export interface StreamTails {
  readonly tails: readonly StreamTail[];
  /** Every tail reads its stream: a feed opened now misses nothing. */
  ready(): boolean;
  stop(): Promise<void>;
}

export interface StreamTailsOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  /** A tail that cannot read (its stream not declared yet, NATS away) tries again after this long. */
  retryMs: number;
}

/**
 * A tail per feed stream: an ordered consumer from the stream's end at start, which carries on from what
 * it handed out when it has to begin again, so that a live feed never misses an event. Cost grows with the
 * events of all tenants, not with the open feeds: each event is parsed only for a tenant someone follows.
 */
export function startStreamTails({ js, jsm, logger, retryMs }: StreamTailsOptions): StreamTails {
  let stopping = false;
  const tails = FEED_STREAMS.map((stream) => {
    const listeners = new Map<string, Set<FeedListener>>();
    let delivered: number | undefined;
    let reading: ConsumerMessages | undefined;

    async function read(): Promise<void> {
      delivered ??= (await jsm.streams.info(stream.name)).state.last_seq;
      const consumer = await js.consumers.get(stream.name, { opt_start_seq: delivered + 1, inactive_threshold: 30_000 });
      reading = await consumer.consume({ max_messages: 1_000 });
      if (stopping) reading.stop();
      for await (const msg of reading) {
        const subject = parseEventSubject(msg.subject);
        const tenantListeners = subject === undefined ? undefined : listeners.get(subject.tenant);
        if (subject !== undefined && tenantListeners !== undefined) {
          const message = feedMessage(msg.seq, subject, msg.string());
          for (const listener of tenantListeners) {
            try {
              listener(message);
            } catch (err) {
              // an event the feed cannot show (not JSON, say) is left out; the others go on
              logger.error({ err, stream: stream.name, seq: msg.seq }, 'change feed could not show an event');
            }
          }
        }
        delivered = msg.seq;
      }
    }

    const running = (async () => {
      while (!stopping) {
        try {
          await read();
        } catch (err) {
          if (stopping) return;
          logger.warn({ err, stream: stream.name }, 'change feed cannot read its stream yet; trying again');
        }
        reading = undefined;
        if (!stopping) await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    })();

    return {
      stream,
      running,
      isReading: () => reading !== undefined,
      stopReading: () => reading?.stop(),
      delivered: () => delivered ?? 0,
      listen(tenant: string, listener: FeedListener) {
        const forTenant = listeners.get(tenant) ?? new Set();
        listeners.set(tenant, forTenant.add(listener));
        return () => {
          forTenant.delete(listener);
          if (forTenant.size === 0) listeners.delete(tenant);
        };
      },
    };
  });

  return {
    tails,
    ready: () => tails.every((tail) => tail.isReading()),
    async stop() {
      stopping = true;
      for (const tail of tails) tail.stopReading();
      await Promise.all(tails.map((tail) => tail.running));
    },
  };
}
