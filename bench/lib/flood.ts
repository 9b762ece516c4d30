// A flood of one request, in a worker thread of its own, so that its answers do not queue behind the
// measured requests in the bench's event loop, nor those behind its answers (another client, as in
// production). Either paced, `perSecond` sent on schedule whatever has been answered (an open loop, as
// a runaway integration is), or `inFlight` requests kept going one after another on each connection.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

export interface FloodSettings {
  origin: string;
  request: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string };
  /** An open loop at this rate; else a closed loop of `inFlight`. */
  perSecond?: number;
  inFlight?: number;
}

export interface Flood {
  /** Stops sending, waits for what is in flight, and gives the answers by status (0: no answer). */
  stop(): Promise<Map<number, number>>;
}

export function startFlood(settings: FloodSettings): Flood {
  const worker = new Worker(new URL(import.meta.url), { workerData: settings });
  return {
    async stop() {
      const answered = new Promise<[number, number][]>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage('stop');
      const statuses = new Map(await answered);
      await worker.terminate();
      return statuses;
    },
  };
}

const TICK_MS = 10;
const MOST_IN_FLIGHT = 2_000;

function run({ origin, request, perSecond, inFlight = 64 }: FloodSettings): void {
  const pool = new Pool(origin, { connections: Math.min(inFlight, 64) });
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const pending = new Set<Promise<void>>();
  let stopping = false;
  const send = (): Promise<void> => {
    const sent: Promise<void> = pool
      .request(request)
      .then(async ({ statusCode, body }) => {
        await body.dump();
        count(statusCode);
      })
      .catch(() => void count(0))
      .finally(() => pending.delete(sent));
    pending.add(sent);
    return sent;
  };
  let ticker: NodeJS.Timeout | undefined;
  if (perSecond === undefined) {
    for (let loop = 0; loop < inFlight; loop += 1) {
      void (async () => {
        while (!stopping) await send();
      })();
    }
  } else {
    const started = performance.now();
    let sent = 0;
    ticker = setInterval(() => {
      const due = Math.floor(((performance.now() - started) * perSecond) / 1_000);
      for (; sent < due && pending.size < MOST_IN_FLIGHT; sent += 1) void send();
      sent = Math.max(sent, due);
    }, TICK_MS);
  }
  parentPort!.once('message', async () => {
    stopping = true;
    clearInterval(ticker);
    await Promise.all(pending);
    await pool.close();
    parentPort!.postMessage([...statuses]);
  });
}

if (!isMainThread && (workerData as Partial<FloodSettings> | undefined)?.request !== undefined) run(workerData as FloodSettings);
