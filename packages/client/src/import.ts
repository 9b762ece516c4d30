import { ApiError } from './errors.js';
import type { components } from './generated/api.js';

/** One write of an import: a method, a path under the base URL, its body, and If-Match or Idempotency-Key. */
export type ImportLine = components['schemas']['ImportLine'];
/** What one line came to: its status and Location and ETag, or the problem a single call would have had. */
export type ImportOutcome = components['schemas']['ImportOutcome'];

/**
 * Sends the lines as one `POST /import`, streamed as they are produced, and yields each line's outcome
 * as the API answers it, in input order. Not retried: give POST lines an `idempotency-key`, so that an
 * import cut off may be sent again whole.
 */
export async function* importLines(
  send: (body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined) => Promise<Response>,
  lines: Iterable<ImportLine> | AsyncIterable<ImportLine>,
  signal?: AbortSignal,
): AsyncIterable<ImportOutcome> {
  const encoder = new TextEncoder();
  const body = ReadableStream.from(
    (async function* () {
      for await (const line of lines) yield encoder.encode(`${JSON.stringify(line)}\n`);
    })(),
  );
  const response = await send(body, signal);
  if (!response.ok) throw await ApiError.of(response, 'importWrites');
  let pending = '';
  for await (const text of response.body!.pipeThrough(new TextDecoderStream())) {
    pending += text;
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) if (line !== '') yield JSON.parse(line) as ImportOutcome;
  }
}
