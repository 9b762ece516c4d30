import type { ApiClient } from '@rm/client';

/** The changes the board shows: combinations and snapshots move bars; the inputs change what is expected or known. */
const WATCHED = ['resource-combination.*', 'available-employee.*', 'availability.*', 'employee-unavailability.*', 'transport-resource.*', 'transport-resource-unavailability.*', 'shift-schedule.*'];
/** Changes come in bursts (an import, a re-solve): one reload for a burst. */
const QUIET_MS = 300;
/** A steady stream of changes never quiets down: the board reloads this long after the first change it does not show yet. */
const MAX_WAIT_MS = 2_000;

/**
 * Follows the tenant's change feed (the typed client resumes it after a break) and calls `changed` once a
 * burst of changes has quieted down, or has gone on for MAX_WAIT_MS; `status` says whether the feed is
 * open. Returns what stops it.
 */
export function followChanges(rm: ApiClient, changed: () => void, status: (live: boolean) => void): () => void {
  const stop = new AbortController();
  let quiet: ReturnType<typeof setTimeout> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const reload = () => {
    clearTimeout(quiet);
    clearTimeout(deadline);
    quiet = deadline = undefined;
    changed();
  };
  void (async () => {
    while (!stop.signal.aborted) {
      try {
        for await (const _change of rm.changes({ types: WATCHED, signal: stop.signal, onConnection: status })) {
          clearTimeout(quiet);
          quiet = setTimeout(reload, QUIET_MS);
          deadline ??= setTimeout(reload, MAX_WAIT_MS);
        }
      } catch {
        // a refusal (its token revoked, too many feeds), which the client has reported closed: tried again in a while
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
  })();
  return () => {
    clearTimeout(quiet);
    clearTimeout(deadline);
    stop.abort();
  };
}
