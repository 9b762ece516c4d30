import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createLogger, createTokenVerifier, mongoReadiness } from '@rm/service-kit';
import { createDocumentLocks, type DocumentLocks } from '@rm/store';
import { connectTestMongo, createTestIssuer, type TestIssuer, type TestMongo } from '@rm/testkit';
import { buildApp } from '../src/app.js';

export const BASE = '/resource-management/v1';

export interface EmployeesHarness {
  app: FastifyInstance;
  mongo: TestMongo;
  issuer: TestIssuer;
  writes: () => number;
  /** A bearer header for a client of the tenant. */
  as(tenant: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/** The real app over a fresh database of the real MongoDB-compatible server, with a local key set. */
export async function startEmployeesApp(
  options: { locks?: DocumentLocks; onWrite?: () => void; mongoUrl?: string } = {},
): Promise<EmployeesHarness> {
  const mongo = await connectTestMongo('employees', { url: options.mongoUrl });
  const issuer = await createTestIssuer();
  let writes = 0;
  const app = buildApp({
    logger: createLogger({ level: 'silent', name: 'employees-test' }),
    db: mongo.db,
    locks: options.locks ?? createDocumentLocks(),
    verifyToken: createTokenVerifier({ jwks: issuer.jwks, issuer: issuer.issuer, audience: issuer.audience }),
    readiness: { mongodb: mongoReadiness(mongo.db) },
    onWrite: () => {
      writes += 1;
      options.onWrite?.();
    },
    config: {
      basePath: BASE,
      bodyLimit: 1_048_576,
      requestTimeout: 30_000,
      readinessTimeout: 2_000,
      cursorSecret: 'test-cursor-secret-of-at-least-32-characters',
    },
  });
  await app.ready();
  return {
    app,
    mongo,
    issuer,
    writes: () => writes,
    as: async (tenant) => ({ authorization: `Bearer ${await issuer.mint({ tenant })}` }),
    close: async () => {
      await app.close();
      await mongo.close();
    },
  };
}

export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

/** A valid employee body located at an ad-hoc start location. */
export function employeeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: { first_name: 'Ada', last_name: 'Peeters' },
    driver_skills: ['C', 'CE'],
    skills: ['nl', 'fr'],
    start_location: { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' },
    labels: ['night'],
    ...overrides,
  };
}
