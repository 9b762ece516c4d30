import type { ApiClient } from '@rm/client';

/** The changes the board shows: combinations and snapshots move bars; the inputs change what is expected or known. */
const WATCHED = ['resource-combination.*', 'available-employee.*', 'availability.*', 'employee-unavailability.*', 'transport-resource.*', 'transport-resource-unavailability.*', 'shift-schedule.*'];
/** Changes come in bursts (an import, a re-solve): one reload for a burst. */
const QUIET_MS = 300;

/**
 * Follows the tenant's change feed (the typed client resumes it after a break) and calls `changed` once a
 * burst of changes has quieted down; `status` says whether it is connected. Returns what stops it.
 */
export function followChanges(rm: ApiClient, changed: () => void, status: (live: boolean) => void): () => void {
  const stop = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  void (async () => {
    while (!stop.signal.aborted) {
      try {
        status(true);
        for await (const _change of rm.changes({ types: WATCHED, signal: stop.signal })) {
          clearTimeout(timer);
          timer = setTimeout(changed, QUIET_MS);
        }
      } catch {
        // a refusal (its token revoked, too many feeds): shown, and tried again in a while
        status(false);
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
  })();
  return () => {
    clearTimeout(timer);
    stop.abort();
  };
}
