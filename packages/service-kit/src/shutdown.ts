import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

export interface GracefulShutdownOptions {
  app: FastifyInstance;
  logger: FastifyBaseLogger;
  /** Upper bound for the whole shutdown; keep delay + grace below the pod's termination grace period. */
  graceMs: number;
  /** Time to keep serving after being marked not ready, while the load balancer stops sending traffic. */
  delayMs?: number;
  /** Run after the HTTP server has closed, in order: stop consumers, stop the relay, drain NATS, close MongoDB. */
  steps: ShutdownStep[];
  signals?: NodeJS.Signals[];
  /** Called when the grace period runs out or a second signal arrives; main.ts may exit(1) there. */
  onTimeout: () => void;
}

export type ShutdownOutcome = 'clean' | 'failed' | 'timed-out';

/**
 * Shuts the service down on the first signal: marks it not ready, waits `delayMs`, closes the HTTP
 * server (in-flight requests finish), then runs the steps in order, each logged; a failing step is
 * logged and the next still runs. Returns the trigger, which tests call instead of sending signals;
 * it resolves when the shutdown is over or has timed out.
 */
export function installGracefulShutdown({
  app,
  logger,
  graceMs,
  delayMs = 0,
  steps,
  signals = ['SIGTERM', 'SIGINT'],
  onTimeout,
}: GracefulShutdownOptions): (reason?: string) => Promise<ShutdownOutcome> {
  let shutdown: Promise<ShutdownOutcome> | undefined;
  let giveUp: (() => void) | undefined;

  const onSignal = (signal: NodeJS.Signals) => {
    if (shutdown === undefined) void trigger(signal);
    else {
      logger.warn({ signal }, 'second signal during shutdown, giving up waiting');
      giveUp?.();
    }
  };
  for (const signal of signals) process.on(signal, onSignal);

  function trigger(reason = 'requested'): Promise<ShutdownOutcome> {
    shutdown ??= run(reason);
    return shutdown;
  }

  async function run(reason: string): Promise<ShutdownOutcome> {
    logger.info({ reason, graceMs, delayMs }, 'shutdown started');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed-out'>((resolve) => {
      giveUp = () => {
        giveUp = undefined;
        clearTimeout(timer);
        onTimeout();
        resolve('timed-out');
      };
      timer = setTimeout(() => {
        logger.error({ graceMs }, 'shutdown did not finish within the grace period');
        giveUp?.();
      }, graceMs);
      // The timer alone must not keep the process alive once everything else has closed.
      timer.unref();
    });
    const outcome = await Promise.race([closeAll(), timedOut]);
    clearTimeout(timer);
    giveUp = undefined;
    for (const signal of signals) process.off(signal, onSignal);
    logger.info({ outcome }, 'shutdown finished');
    return outcome;
  }

  async function closeAll(): Promise<ShutdownOutcome> {
    app.markShuttingDown();
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    let failed = !(await runStep({ name: 'http server', run: () => app.close() }));
    for (const step of steps) {
      if (!(await runStep(step))) failed = true;
    }
    return failed ? 'failed' : 'clean';
  }

  async function runStep({ name, run: step }: ShutdownStep): Promise<boolean> {
    try {
      await step();
      logger.info({ step: name }, 'shutdown step done');
      return true;
    } catch (error) {
      logger.error({ step: name, err: error }, 'shutdown step failed');
      return false;
    }
  }

  return trigger;
}
