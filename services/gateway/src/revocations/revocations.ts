import { revocationCheck, type Logger, type RevocationCheck, type RevocationList } from '@rm/service-kit';
import type { RevocationStore } from './revocation-store.js';

/**
 * The revocations as this replica knows them, read from the database at start (a replica serves no
 * token it could not refuse) and every `refreshMs`: the gateway's
 * own verifier checks them, and it serves them to every service (`GET /oauth2/revocations`).
 */
export interface Revocations extends RevocationCheck {
  current(): RevocationList;
  stop(): void;
}

export async function startRevocations(store: RevocationStore, { refreshMs, logger }: { refreshMs: number; logger: Logger }): Promise<Revocations> {
  let list = await store.list();
  const timer = setInterval(() => {
    store.list().then(
      (read) => {
        list = read;
      },
      (error: unknown) => logger.warn({ err: error }, 'the token revocations could not be read; the last ones stand'),
    );
  }, refreshMs);
  timer.unref();
  return {
    ...revocationCheck(() => list),
    current: () => list,
    stop: () => clearInterval(timer),
  };
}
