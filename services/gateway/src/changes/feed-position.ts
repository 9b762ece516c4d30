import { FEED_STREAMS } from '@rm/contracts';

/**
 * A place in the change feed: for each of its streams (FEED_STREAMS order), the sequence up to which the
 * feed has shown everything the caller asked for. It is the SSE event id, opaque to the caller: base64url
 * of `1:<seq>,<seq>,…`. A position written before a stream was added lacks it, and reads it from its start.
 */
export type FeedPosition = number[];

const VERSION = '1';

export function encodePosition(position: FeedPosition): string {
  return Buffer.from(`${VERSION}:${position.join(',')}`).toString('base64url');
}

/** The position, or undefined when the text is not one this feed wrote. */
export function decodePosition(text: string): FeedPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return undefined;
  const match = /^1:(\d{1,16}(?:,\d{1,16})*)$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) return undefined;
  const sequences = match[1]!.split(',').map(Number);
  if (sequences.length > FEED_STREAMS.length || !sequences.every(Number.isSafeInteger)) return undefined;
  return FEED_STREAMS.map((_stream, index) => sequences[index] ?? 0);
}
