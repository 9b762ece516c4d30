// Many server-sent-event streams held open in a worker thread of their own, so that reading them (their
// events, their heartbeats) does not queue behind the bench's measured requests in its event loop, nor
// those behind them: other clients, as in production. One undici Pool, a connection per stream.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

/** One event block as sent; `event` and `data` are absent on a block without them (a heartbeat, the opening id). */
export interface EventBlock {
  id?: string;
  event?: string;
  data?: string;
}

/** Splits the text of a stream into event blocks, chunk by chunk, and hands each block with a field to `onBlock` (comments are left out). */
export function eventBlockReader(onBlock: (block: EventBlock) => void): (chunk: string) => void {
  let text = '';
  return (chunk) => {
    text += chunk;
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block: EventBlock = {};
      let seen = false;
      for (const line of text.slice(0, end).split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id' || field === 'event' || field === 'data') {
          block[field] = field === 'data' && block.data !== undefined ? `${block.data}\n${value}` : value;
          seen = true;
        }
      }
      text = text.slice(end + 2);
      if (seen) onBlock(block);
    }
  };
}

export interface StreamRequest {
  path: string;
  headers: Record<string, string>;
  /** Handed back with the stream's receipts: which of the caller's groups it belongs to. */
  label?: string;
}

export interface OpenedStreams {
  /** From each request sent to its stream's first event block, in milliseconds, of the streams that opened. */
  openMs: number[];
  /** Streams that did not open, by status or error message. */
  failures: Map<string, number>;
}

/** What one stream received since the last take(). */
export interface StreamReceipt {
  label: string | undefined;
  /** The events with data, in the order received. */
  events: { event: string; data: string }[];
  /** Blocks without data: heartbeats, and the opening id. */
  others: number;
  /** The server ended the stream, or it failed, before the bench closed it. */
  ended: boolean;
}

export interface SseStreams {
  /** Opens a stream per request, `inFlight` opening at once; they stay open until closeAll(). */
  open(requests: StreamRequest[], inFlight: number): Promise<OpenedStreams>;
  /** What each open stream received since the last take(), with its request's label; forgets it. */
  take(): Promise<StreamReceipt[]>;
  /** Closes every stream (the client aborts). */
  closeAll(): Promise<void>;
  /** Closes every stream and ends the worker. */
  stop(): Promise<void>;
}

type Call = { op: 'open'; requests: StreamRequest[]; inFlight: number } | { op: 'take' } | { op: 'closeAll' };

export function startSseStreams(origin: string): SseStreams {
  const worker = new Worker(new URL(import.meta.url), { workerData: { sseOrigin: origin } });
  let calls = 0;
  const call = <T>(message: Call): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = (calls += 1);
      const onMessage = (answer: { id: number; result?: T; error?: string }) => {
        if (answer.id !== id) return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        if (answer.error === undefined) resolve(answer.result as T);
        else reject(new Error(answer.error));
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.postMessage({ id, ...message });
    });
  return {
    open: (requests, inFlight) => call({ op: 'open', requests, inFlight }),
    take: () => call({ op: 'take' }),
    closeAll: () => call({ op: 'closeAll' }),
    async stop() {
      await call({ op: 'closeAll' });
      await worker.terminate();
    },
  };
}

interface HeldStream {
  abort: AbortController;
  receipt: StreamReceipt;
}

function serve(origin: string): void {
  // as many connections as streams: each holds its own until closed
  const pool = new Pool(origin, { connections: null });
  let streams: HeldStream[] = [];

  async function openOne({ path, headers, label }: StreamRequest): Promise<number> {
    const abort = new AbortController();
    const started = performance.now();
    const { statusCode, body } = await pool.request({ method: 'GET', path, headers, signal: abort.signal });
    if (statusCode !== 200) {
      await body.dump();
      throw new Error(`answered ${statusCode}`);
    }
    const held: HeldStream = { abort, receipt: { label, events: [], others: 0, ended: false } };
    streams.push(held);
    return new Promise<number>((resolve, reject) => {
      const read = eventBlockReader(({ event, data }) => {
        if (data === undefined) held.receipt.others += 1;
        else held.receipt.events.push({ event: event ?? 'message', data });
        resolve(performance.now() - started);
      });
      const ended = () => {
        if (!abort.signal.aborted) held.receipt.ended = true;
        reject(new Error('ended before its first event'));
      };
      body.setEncoding('utf8');
      body.on('data', read);
      body.on('end', ended);
      body.on('error', ended);
    });
  }

  async function open(requests: StreamRequest[], inFlight: number): Promise<OpenedStreams> {
    const openMs: number[] = [];
    const failures = new Map<string, number>();
    let next = 0;
    const opener = async () => {
      while (next < requests.length) {
        const request = requests[next]!;
        next += 1;
        try {
          openMs.push(await openOne(request));
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          failures.set(message, (failures.get(message) ?? 0) + 1);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, requests.length) }, opener));
    return { openMs, failures };
  }

  function take(): StreamReceipt[] {
    return streams.map((held) => {
      const { receipt } = held;
      held.receipt = { label: receipt.label, events: [], others: 0, ended: receipt.ended };
      return receipt;
    });
  }

  function closeAll(): void {
    for (const { abort } of streams) abort.abort();
    streams = [];
  }

  parentPort!.on('message', async ({ id, ...message }: { id: number } & Call) => {
    try {
      const result = message.op === 'open' ? await open(message.requests, message.inFlight) : message.op === 'take' ? take() : closeAll();
      parentPort!.postMessage({ id, result });
    } catch (error) {
      parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}

if (!isMainThread && typeof (workerData as { sseOrigin?: unknown } | undefined)?.sseOrigin === 'string') serve((workerData as { sseOrigin: string }).sseOrigin);
