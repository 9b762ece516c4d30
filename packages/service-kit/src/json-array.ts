import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** Text gathered before it is written: few writes, little held. */
const CHUNK_CHARACTERS = 64 * 1024;

/**
 * Answers a JSON array written as `items` yields them, so that an unpaged list (up to 50,000
 * availabilities of one employee) is never held whole. The first item is read before the answer
 * starts, so that an outage then is still an ordinary 503; one later ends the answer early (the
 * connection closes mid-body, which no client takes for a whole list).
 */
export async function sendJsonArray<T>(reply: FastifyReply, items: AsyncIterable<T>, represent: (item: T) => unknown): Promise<FastifyReply> {
  const iterator = items[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* chunks(): AsyncGenerator<string> {
    try {
      let chunk = '[';
      for (let next = first, separator = ''; next.done !== true; next = await iterator.next(), separator = ',') {
        chunk += separator + JSON.stringify(represent(next.value));
        if (chunk.length >= CHUNK_CHARACTERS) {
          yield chunk;
          chunk = '';
        }
      }
      yield `${chunk}]`;
    } finally {
      // a client that went away ends this early: the items' cursor closes with it
      await iterator.return?.();
    }
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(chunks(), { objectMode: false }));
}
