import { sleep } from './sleep.js';
import { ApiError } from './errors.js';
import type { components } from './generated/api.js';

/** One change as the feed carries it: the resource as GET shows it, or the state it had when deleted. */
export type ChangeEvent = components['schemas']['ChangeEvent'];

/** A change, and the feed's position just after it: keep it to resume from there (`after`). */
export interface Change {
  position: string;
  event: ChangeEvent;
}

export interface ChangesOptions {
  /** Event types, `<entity>.<action>` or `<entity>.*`; every type when absent. */
  types?: readonly string[];
  /** A position from an earlier change or from `lastPosition`: the changes after it; from now when absent. */
  after?: string;
  /** Ends the iteration. */
  signal?: AbortSignal;
  /**
   * Called with true when the feed has answered (2xx) and changes can flow, and with false when that
   * connection is lost or the feed refuses it: to show whether the caller is live, not just iterating.
   */
  onConnection?: (open: boolean) => void;
}

/** One block of a `text/event-stream`: its id, event name and data lines, each when present. */
export interface ServerSentEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** A feed that sends nothing, not even its 15-second heartbeat, for this long is taken as lost and opened again. */
const SILENCE_MS = 45_000;
const RECONNECT_DELAY_MS = 1_000;

/**
 * Every change from `after` (or from now) as it happens, for as long as the caller iterates: a lost or
 * silent connection is opened again from the last position the feed gave, heartbeats included, so
 * nothing is lost or repeated. A refusal (400, 410, …) ends it with an ApiError.
 */
export async function* followChanges(open: (query: URLSearchParams, signal: AbortSignal) => Promise<Response>, options: ChangesOptions = {}): AsyncIterable<Change> {
  let position = options.after;
  const stopped = () => options.signal?.aborted === true;
  while (!stopped()) {
    // the caller's abort ends this connection through its own controller (see serverSentEvents)
    const connection = new AbortController();
    const stop = () => connection.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    const query = new URLSearchParams();
    if (options.types !== undefined) query.set('types', options.types.join(','));
    if (position !== undefined) query.set('after', position);
    let silence: NodeJS.Timeout | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(), SILENCE_MS);
    };
    try {
      heard();
      const response = await open(query, connection.signal);
      if (!response.ok) throw await ApiError.of(response, 'changes');
      options.onConnection?.(true);
      for await (const block of serverSentEvents(response.body!, connection.signal)) {
        heard();
        if (block.id !== undefined) position = block.id;
        if (block.data !== undefined) yield { position: position!, event: JSON.parse(block.data) as ChangeEvent };
      }
    } catch (error) {
      if (stopped()) return;
      if (error instanceof ApiError) {
        options.onConnection?.(false);
        throw error;
      }
      // a lost connection: opened again from the last position
    } finally {
      options.signal?.removeEventListener('abort', stop);
      clearTimeout(silence);
      connection.abort();
    }
    // stopped by the caller while reading: nothing to say, nothing to wait for
    if (stopped()) return;
    // lost, or ended by the server: closed until it is opened again
    options.onConnection?.(false);
    await sleep(RECONNECT_DELAY_MS, options.signal).catch(() => undefined);
  }
}

/**
 * The blocks of a `text/event-stream` (WHATWG HTML §9.2.6), comments left out. Unlike an EventSource it
 * also yields a block with an id and no data: the feed's heartbeat moves the position on with one.
 * `signal` cancels the body, which closes its connection: the request's own signal does not always
 * reach it, since undici's Request follows the signal it was given through a weak reference that
 * garbage collection may clear (a feed stopped after a reconnect stayed open until undici's body
 * timeout, 300 s, in the import-under-crashes scenario).
 */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncIterable<ServerSentEvent> {
  let pending = '';
  let block: ServerSentEvent = {};
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (signal?.aborted === true) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      yield* blocksOf(read.value);
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    // read to its end, or left early by the caller: either way the connection is closed
    cancel();
  }

  function* blocksOf(text: string): Iterable<ServerSentEvent> {
    pending += text;
    const lines = pending.split(/\r\n|\r|\n/);
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === '') {
        if (block.id !== undefined || block.data !== undefined) yield block;
        block = {};
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') block.id = value;
      else if (field === 'event') block.event = value;
      else if (field === 'data') block.data = block.data === undefined ? value : `${block.data}\n${value}`;
    }
  }
}
