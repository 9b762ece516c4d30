import type { Collection } from 'mongodb';
import type { ConsumerRunner } from '@rm/bus';
import type { Logger } from '@rm/service-kit';
import { isDuplicateKeyError, type Store } from '@rm/store';

/** Who holds a partition, until when. */
interface LeaseRow {
  _id: number;
  owner: string;
  expires_at: Date;
}

/** A replica that is alive, as of its last heartbeat. */
interface ReplicaRow {
  _id: string;
  seen_at: Date;
}

export interface PartitionTables {
  leases: Collection<LeaseRow>;
  replicas: Collection<ReplicaRow>;
}

export function createPartitionTables(store: Store): PartitionTables {
  return {
    leases: store.plainCollection<LeaseRow>('partition_leases', []),
    replicas: store.plainCollection<ReplicaRow>('replicas', []),
  };
}

export interface PartitionLeasesOptions {
  tables: PartitionTables;
  partitions: number;
  replicaId: string;
  /** How long a lease holds without renewal: how long a crashed replica's partitions wait for another. */
  leaseMs: number;
  /** Starts consuming a partition this replica now holds. */
  start(partition: number): Promise<ConsumerRunner>;
  /** Called after a partition's consumer has stopped, before its lease goes. */
  released(partition: number): Promise<void>;
  logger: Logger;
}

export interface PartitionLeases {
  held(): number[];
  /** Stops every partition's consumer and gives the leases up, for the other replicas to take at once. */
  stop(): Promise<void>;
}

/**
 * Spreads the partitions over the live replicas through leases in the database: each replica renews
 * its leases and heartbeat every third of the lease, holds its fair share (partitions ÷ live replicas,
 * rounded up), gives up what is beyond it, and takes free or expired partitions up to it. A replica
 * that stops gives its leases up; one that crashes loses them when they expire. A replica stops
 * consuming a partition once its lease could have expired without renewal, before another may take it.
 */
export function startPartitionLeases(options: PartitionLeasesOptions): PartitionLeases {
  const { tables, partitions, replicaId, leaseMs, logger } = options;
  const running = new Map<number, { runner: ConsumerRunner; validUntil: number }>();
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let tick: Promise<void> = Promise.resolve();

  async function giveUp(partition: number, reason: string): Promise<void> {
    const held = running.get(partition);
    if (held === undefined) return;
    running.delete(partition);
    await held.runner.stop();
    await options.released(partition);
    logger.info({ partition, reason }, 'partition given up');
  }

  async function round(): Promise<void> {
    const now = Date.now();
    const expires = new Date(now + leaseMs);
    try {
      await tables.replicas.updateOne({ _id: replicaId }, { $set: { seen_at: new Date(now) } }, { upsert: true });
      for (const [partition, held] of running) {
        const renewed = await tables.leases.updateOne({ _id: partition, owner: replicaId }, { $set: { expires_at: expires } });
        if (renewed.matchedCount === 0) await giveUp(partition, 'lease taken');
        else held.validUntil = now + leaseMs;
      }
      const live = await tables.replicas.countDocuments({ seen_at: { $gt: new Date(now - leaseMs) } });
      const fairShare = Math.ceil(partitions / Math.max(1, live));
      for (const partition of [...running.keys()].sort((a, b) => b - a).slice(0, Math.max(0, running.size - fairShare))) {
        await giveUp(partition, 'rebalanced');
        await tables.leases.deleteOne({ _id: partition, owner: replicaId });
      }
      for (let partition = 0; partition < partitions && running.size < fairShare && !stopping; partition++) {
        if (!running.has(partition) && (await acquire(partition, now, expires))) {
          running.set(partition, { runner: await options.start(partition), validUntil: now + leaseMs });
          logger.info({ partition }, 'partition taken');
        }
      }
    } catch (error) {
      logger.warn({ err: error }, 'partition leases could not be renewed');
      // past its lease another replica may hold it: stop before then
      for (const [partition, held] of running) if (Date.now() > held.validUntil - leaseMs / 3) await giveUp(partition, 'lease not renewed');
    }
  }

  async function acquire(partition: number, now: number, expires: Date): Promise<boolean> {
    try {
      const taken = await tables.leases.updateOne(
        { _id: partition, $or: [{ owner: replicaId }, { expires_at: { $lt: new Date(now) } }] },
        { $set: { owner: replicaId, expires_at: expires } },
        { upsert: true },
      );
      return taken.matchedCount + taken.upsertedCount > 0;
    } catch (error) {
      // another replica holds it: the upsert tried to insert a second lease under its id
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  function schedule(): void {
    timer = setTimeout(() => {
      tick = round().finally(() => {
        if (!stopping) schedule();
      });
    }, leaseMs / 3);
  }

  tick = round().finally(schedule);

  return {
    held: () => [...running.keys()].sort((a, b) => a - b),
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await tick;
      clearTimeout(timer);
      for (const partition of [...running.keys()]) {
        await giveUp(partition, 'stopping');
        await tables.leases.deleteOne({ _id: partition, owner: replicaId }).catch(() => undefined);
      }
      await tables.replicas.deleteOne({ _id: replicaId }).catch(() => undefined);
    },
  };
}
