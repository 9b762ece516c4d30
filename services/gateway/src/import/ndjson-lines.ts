import type { Readable } from 'node:stream';

/** One line of an NDJSON body: its number (from 1) and text, or only its number when it was longer than allowed. */
export type NdjsonLine = { number: number; text: string } | { number: number; tooLong: true };

/**
 * The lines of a streamed body, as they arrive, blank ones left out: never more than `maxBytes` of one
 * line held, so that a body without newlines cannot fill memory.
 */
export async function* ndjsonLines(body: Readable, maxBytes: number): AsyncIterable<NdjsonLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  let number = 0;
  const line = function* (last: Buffer): Generator<NdjsonLine> {
    number += 1;
    if (tooLong || pendingBytes + last.length > maxBytes) {
      yield { number, tooLong: true };
    } else {
      const text = Buffer.concat([...pending, last]).toString('utf8').replace(/\r$/, '');
      if (text.trim() !== '') yield { number, text };
    }
    pending = [];
    pendingBytes = 0;
    tooLong = false;
  };
  for await (const chunk of body as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end >= 0; end = chunk.indexOf(10, start)) {
      yield* line(chunk.subarray(start, end));
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (tooLong || pendingBytes + rest.length > maxBytes) {
      tooLong = true;
      pending = [];
      pendingBytes = 0;
    } else if (rest.length > 0) {
      pending.push(rest);
      pendingBytes += rest.length;
    }
  }
  if (pendingBytes > 0 || tooLong) yield* line(Buffer.alloc(0));
}
