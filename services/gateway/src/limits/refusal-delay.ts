/**
 * Rate refusals (429) are answered after the second their `Retry-After` names, not at once: a client
 * that sends again as soon as it is refused, as floods and naive retry loops do, would otherwise turn
 * each refusal into another request, thousands a second, each parsed, authenticated and counted. So a
 * closed loop of n connections gets at most n refusals a second. At most `most` refusals wait at once
 * per replica (each holds its connection); beyond them a refusal is answered at once.
 */
export interface RefusalDelay {
  /** Resolves when the refusal may be answered. */
  wait(): Promise<void>;
}

export function createRefusalDelay({ delayMs, most }: { delayMs: number; most: number }): RefusalDelay {
  let waiting = 0;
  return {
    async wait() {
      if (waiting >= most) return;
      waiting += 1;
      try {
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
      } finally {
        waiting -= 1;
      }
    },
  };
}
