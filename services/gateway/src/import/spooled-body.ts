import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BodyTooLarge } from '../errors.js';

export interface SpooledBody {
  bytes: number;
  read(): Readable;
  remove(): Promise<void>;
}

/**
 * Writes a request body to a file of its own, as fast as it comes: an import's upload then ends well
 * within REQUEST_TIMEOUT_MS (Node bounds the whole request, body included), however long its lines
 * take to apply, and memory holds no more of it than a line. Refused with a 413 past `limit` bytes.
 */
export async function spoolBody(body: Readable, limit: number): Promise<SpooledBody> {
  const dir = await mkdtemp(join(tmpdir(), 'rm-import-'));
  const path = join(dir, 'body.ndjson');
  const remove = () => rm(dir, { recursive: true, force: true });
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > limit ? new BodyTooLarge(limit) : null, chunk);
    },
  });
  try {
    // past the limit the request is not read on, but its connection is kept: pipeline() takes the socket
    // off a server request before destroying it, so the 413 (Connection: close) is still answered
    await pipeline(body, counted, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await remove();
    throw error;
  }
  return { bytes, read: () => createReadStream(path), remove };
}
