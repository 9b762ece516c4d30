/** A readiness check: resolves when the dependency answers, rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

/** The part of a MongoDB `Db` the check needs. */
export interface PingableDb {
  command(command: { ping: 1 }): Promise<unknown>;
}

/** The parts of a NATS connection (and, optionally, its JetStream manager) the check needs. */
export interface NatsConnectionLike {
  isClosed(): boolean;
  isDraining(): boolean;
  flush(): Promise<void>;
}
export interface JetStreamManagerLike {
  getAccountInfo(): Promise<unknown>;
}

export function mongoReadiness(db: PingableDb): ReadinessCheck {
  return async () => {
    await db.command({ ping: 1 });
  };
}

/**
 * Fails when the connection is closed or draining. While it reconnects, a flush or an account
 * info request does not complete, so the readiness timeout turns that into a failure.
 */
export function natsReadiness(nc: NatsConnectionLike, jetStreamManager?: JetStreamManagerLike): ReadinessCheck {
  return async () => {
    if (nc.isClosed()) throw new Error('NATS connection is closed');
    if (nc.isDraining()) throw new Error('NATS connection is draining');
    if (jetStreamManager === undefined) await nc.flush();
    else await jetStreamManager.getAccountInfo();
  };
}
