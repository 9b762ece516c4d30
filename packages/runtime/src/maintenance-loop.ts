import type { Logger } from '@rm/service-kit';
import type { Store } from '@rm/store';

export interface MaintenanceLoop {
  stop(): Promise<void>;
}

/**
 * Runs the store's maintenance every `intervalMs`: it finishes what a crashed writer left half done
 * and purges tombstones whose time has come. Any replica may run it; it is idempotent.
 */
export function startMaintenance(store: Store, intervalMs: number, logger: Logger): MaintenanceLoop {
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function pass(): Promise<void> {
    try {
      const report = await store.maintain();
      const { intentsFinished, cascadesFinished } = report;
      if (intentsFinished + cascadesFinished > 0) logger.warn(report, 'maintenance finished writes a crash had left half done');
      else logger.debug(report, 'maintenance pass');
    } catch (err) {
      logger.warn({ err }, 'maintenance pass failed, will retry');
    }
  }

  function schedule(): void {
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = undefined;
        if (!stopped) schedule();
      });
    }, intervalMs);
  }

  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
