import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import { createCursorCodec, createService, type ReadinessCheck, type TokenVerifier } from '@rm/service-kit';
import type { DocumentLocks } from '@rm/store';
import { employeeRoutes } from './routes/employee.routes.js';
import { createEmployeeRepository } from './store/employee-repository.js';

export interface AppDependencies {
  logger: FastifyBaseLogger;
  db: Db;
  /** Shared with the outbox relay's store, so that a process never races itself on a document. */
  locks: DocumentLocks;
  verifyToken: TokenVerifier;
  readiness: Record<string, ReadinessCheck>;
  /** Wakes the outbox relay after a write. */
  onWrite: () => void;
  config: {
    basePath: string;
    bodyLimit: number;
    requestTimeout: number;
    readinessTimeout: number;
    cursorSecret: string;
  };
}

/** The employees service's HTTP app; it neither listens nor connects (main.ts does). */
export function buildApp({ logger, db, locks, verifyToken, readiness, onWrite, config }: AppDependencies): FastifyInstance {
  const employees = createEmployeeRepository(db, { locks, onWrite });
  const cursors = createCursorCodec(config.cursorSecret);
  const app = createService({
    logger,
    verifyToken,
    readiness,
    basePath: config.basePath,
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeout,
    readinessTimeout: config.readinessTimeout,
    routes: async (api) => {
      await api.register(employeeRoutes, { employees, cursors });
    },
  });
  app.addHook('onReady', () => employees.declareIndexes());
  return app;
}
