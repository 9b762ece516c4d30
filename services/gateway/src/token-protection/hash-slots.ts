import { HttpProblem } from '@rm/service-kit';

/**
 * Bounds the client-secret hashes of one gateway replica: at most `concurrent` at once, `queued` more
 * waiting in order; beyond that, TokenEndpointBusy at once. Each hash is an scrypt of 32 MiB and about
 * 135 ms in libuv's pool of 4 threads, which DNS lookups and file reads share: unbounded, one client
 * could fill the pool and the memory, and stall every request of the replica that needs a thread.
 */
export interface HashSlots {
  /** Runs the hash when a slot is free; throws TokenEndpointBusy when the queue is full. */
  run<T>(hash: () => Promise<T>): Promise<T>;
}

export function createHashSlots({ concurrent, queued }: { concurrent: number; queued: number }): HashSlots {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(hash) {
      if (running >= concurrent) {
        if (waiting.length >= queued) throw new TokenEndpointBusy();
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else running += 1;
      try {
        return await hash();
      } finally {
        // the slot passes to the first waiting, or frees
        const next = waiting.shift();
        if (next === undefined) running -= 1;
        else next();
      }
    },
  };
}

/** 503 from the token endpoint: as many secret hashes as it runs at once, and as many waiting, are under way. */
export class TokenEndpointBusy extends HttpProblem {
  constructor() {
    super({
      status: 503,
      title: 'Service Unavailable',
      detail: 'The token endpoint is checking as many client secrets as it can; retry in a second.',
      code: 'RM_TOKEN_ENDPOINT_BUSY',
      headers: { 'Retry-After': '1' },
    });
  }
}
