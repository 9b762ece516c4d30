import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { JetStreamClient } from '@nats-io/jetstream';
import { FEED_STREAMS, type TypeFilter } from '@rm/contracts';
import { encodePosition, type FeedPosition } from './feed-position.js';
import type { FeedMessage, StreamTail } from './stream-tails.js';
import { readTenantHistory } from './tenant-history.js';

export interface TenantFeedOptions {
  js: JetStreamClient;
  tails: readonly StreamTail[];
  tenant: string;
  filter: TypeFilter;
  /** Where the caller is: everything after it is shown. */
  from: FeedPosition;
  /** The end of each stream when the feed opened: its first reading of history goes up to there. */
  ends: FeedPosition;
  heartbeatMs: number;
  /** When the caller's token expires: the feed ends then, and the caller comes back with a new one. */
  until: number;
  /** Whether the caller's token has been revoked since it was issued: asked at each heartbeat, and the feed ends. */
  revoked(): boolean;
  /** Bytes the caller may leave unread before the feed stops buffering and reads from the streams again. */
  highWaterBytes: number;
  /** Live events kept while the feed reads history; beyond them it reads history again. */
  bufferedEvents: number;
  /** How long a history consumer outlives its last fetch (tenant-history.ts). */
  historyIdleMs: number;
  /** The end of a stream now: where a feed reads history up to. */
  lastSequence(streamName: string): Promise<number>;
}

export interface TenantFeed {
  /** The `text/event-stream` body. */
  readonly body: Readable;
  /** Ends the body (shutdown); the caller resumes from its last event id. */
  end(): void;
}

/**
 * One caller's change feed. It shows history from its position, then follows the stream tails live. Live
 * events that arrive while it reads history are kept and shown after it, skipping what history showed
 * already; when the caller reads too slowly or too many arrive, it drops them and reads history again.
 * So it holds a bounded amount per caller, and shows each event once, in stream order.
 */
export function openTenantFeed(options: TenantFeedOptions): TenantFeed {
  const { js, tails, tenant, filter, heartbeatMs, highWaterBytes, bufferedEvents } = options;
  const body = new PassThrough({ writableHighWaterMark: highWaterBytes });
  const shown = [...options.from];
  let closed = false;
  let live = false;
  let kept: FeedMessage[][] = [];
  let keptCount = 0;
  let overflowed = false;
  let leaveLive: () => void = () => undefined;

  function catchUpAgain(): void {
    live = false;
    kept = FEED_STREAMS.map(() => []);
    keptCount = 0;
    overflowed = false;
  }

  function show(index: number, message: FeedMessage): void {
    shown[index] = message.seq;
    if (!filter(message.entity, message.action)) return;
    body.write(`id: ${encodePosition(shown)}\nevent: ${message.entity}.${message.action}\ndata: ${message.data()}\n\n`);
  }

  const unlisten = tails.map((tail, index) =>
    tail.listen(tenant, (message) => {
      if (closed) return;
      if (live && !body.writableNeedDrain) return show(index, message);
      if (live) {
        catchUpAgain();
        leaveLive();
      }
      if (overflowed) return;
      if (keptCount === bufferedEvents) {
        overflowed = true;
        kept = [];
        return;
      }
      kept[index]!.push(message);
      keptCount += 1;
    }),
  );

  async function drained(): Promise<void> {
    if (body.writableNeedDrain && !closed) await once(body, 'drain');
  }

  /** Shows the tenant's events of the stream after what was shown, up to `last` at least. */
  async function readHistory(index: number, last: number): Promise<void> {
    if (shown[index]! >= last) return;
    await readTenantHistory({
      js,
      stream: FEED_STREAMS[index]!,
      tenant,
      after: shown[index]!,
      last,
      idleMs: options.historyIdleMs,
      closed: () => closed,
      async show(messages) {
        // a feed closed during the fetch has ended its body
        if (closed) return;
        for (const message of messages) show(index, message);
        await drained();
      },
    });
    // nothing of the tenant's up to `last` is left unshown
    shown[index] = Math.max(shown[index]!, last);
  }

  // what the tails handed out before these listeners were added is history: read it up to there at least
  const openedAt = options.ends.map((end, index) => Math.max(end, tails[index]!.delivered()));

  async function run(): Promise<void> {
    catchUpAgain();
    let ends: FeedPosition | undefined = openedAt;
    while (!closed) {
      for (const [index, stream] of FEED_STREAMS.entries()) {
        await readHistory(index, ends?.[index] ?? (await options.lastSequence(stream.name)));
        if (closed) return;
      }
      // later rounds read up to the ends as they are then
      ends = undefined;
      if (overflowed) {
        catchUpAgain();
        continue;
      }
      for (const [index, messages] of kept.entries()) {
        for (const message of messages) if (message.seq > shown[index]!) show(index, message);
      }
      kept = [];
      live = true;
      await new Promise<void>((resolve) => (leaveLive = resolve));
      await drained();
    }
  }

  /** A comment, and the position so far as an id without data: a quiet caller still resumes from near now. */
  function heartbeat(): void {
    if (options.revoked()) return end();
    if (body.writableNeedDrain) return;
    // live, every event of the tenant up to what the tails delivered has been shown
    if (live) for (const [index, tail] of tails.entries()) shown[index] = Math.max(shown[index]!, tail.delivered());
    body.write(`: heartbeat\nid: ${encodePosition(shown)}\n\n`);
  }

  function close(): void {
    if (closed) return;
    closed = true;
    clearInterval(beating);
    clearTimeout(expiring);
    for (const stop of unlisten) stop();
    leaveLive();
    body.emit('drain');
  }

  function end(): void {
    close();
    body.end();
  }

  const beating = setInterval(heartbeat, heartbeatMs);
  const expiring = setTimeout(end, Math.max(0, options.until - Date.now()));
  body.on('close', close);
  body.write(`retry: 1000\nid: ${encodePosition(shown)}\n\n`);
  run().catch((err: unknown) => body.destroy(err instanceof Error ? err : new Error(String(err))));
  return { body, end };
}
