import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { ServiceUnavailable, ValidationProblem, type Logger } from '@rm/service-kit';
import { FeedPositionGone, TooManyFeeds } from '../errors.js';
import { FEED_STREAMS, parseTypeFilter } from '@rm/contracts';
import { decodePosition, type FeedPosition } from './feed-position.js';
import { startStreamTails } from './stream-tails.js';
import { openTenantFeed, type TenantFeed } from './tenant-feed.js';

export interface ChangeFeedsOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  heartbeatMs: number;
  /** Feeds one tenant may keep open on one replica. */
  feedsPerTenant: number;
}

/** What the caller asked for: its tenant, `?types=`, and a position from `Last-Event-ID` or `?after=`. */
export interface FeedRequest {
  tenant: string;
  /** When the caller's token expires, and whether it has been revoked since (tenant-feed.ts). */
  until: number;
  revoked(): boolean;
  types: string | undefined;
  position: { field: string; value: string } | undefined;
}

export interface ChangeFeeds {
  open(request: FeedRequest): Promise<TenantFeed>;
  /** Ends every open feed: they resume elsewhere from their last event id. */
  endAll(): void;
  stop(): Promise<void>;
}

/** Bytes a caller may leave unread, and live events kept while reading history, before the feed reads history again. */
const HIGH_WATER_BYTES = 256 * 1024;
const BUFFERED_EVENTS = 1_000;
/** A history consumer is removed by the server this long after its last fetch: the feed cannot delete it. */
const HISTORY_IDLE_MS = 5_000;

/** The change feeds of one replica: the stream tails they share, and every open feed by tenant. */
export function startChangeFeeds({ js, jsm, logger, heartbeatMs, feedsPerTenant }: ChangeFeedsOptions): ChangeFeeds {
  const tails = startStreamTails({ js, jsm, logger, retryMs: 1_000 });
  const open = new Map<string, Set<TenantFeed>>();

  /** Where a feed starts (the caller's position, checked against what the streams keep, or their ends now), and their ends. */
  async function startingPoint(position: FeedRequest['position']): Promise<{ from: FeedPosition; ends: FeedPosition }> {
    const states = await Promise.all(FEED_STREAMS.map(async ({ name }) => (await jsm.streams.info(name)).state));
    const ends = states.map((state) => state.last_seq);
    if (position === undefined) return { from: ends, ends };
    const from = decodePosition(position.value);
    if (from === undefined) throw new ValidationProblem([{ field: position.field, message: 'must be an event id this feed sent' }]);
    // before the first kept event, or beyond the last (the streams were replaced): events are missing
    if (from.some((seq, index) => seq < states[index]!.first_seq - 1 || seq > states[index]!.last_seq)) throw new FeedPositionGone(position.field);
    return { from, ends };
  }

  return {
    async open({ tenant, types, position, until, revoked }) {
      const wanted = parseTypeFilter(types);
      if (!wanted.ok) throw new ValidationProblem(wanted.violations);
      if (!tails.ready()) throw new ServiceUnavailable('The change feed is starting; retry in a moment.');
      const { from, ends } = await startingPoint(position);
      const tenantFeeds = open.get(tenant) ?? new Set();
      if (tenantFeeds.size >= feedsPerTenant) throw new TooManyFeeds(feedsPerTenant);
      const feed = openTenantFeed({
        js,
        tails: tails.tails,
        tenant,
        filter: wanted.filter,
        from,
        ends,
        until,
        revoked,
        heartbeatMs,
        highWaterBytes: HIGH_WATER_BYTES,
        bufferedEvents: BUFFERED_EVENTS,
        historyIdleMs: HISTORY_IDLE_MS,
        lastSequence: async (name) => (await jsm.streams.info(name)).state.last_seq,
      });
      open.set(tenant, tenantFeeds.add(feed));
      feed.body.on('close', () => {
        tenantFeeds.delete(feed);
        if (tenantFeeds.size === 0) open.delete(tenant);
      });
      return feed;
    },
    endAll() {
      for (const feeds of open.values()) for (const feed of feeds) feed.end();
    },
    stop: () => tails.stop(),
  };
}
