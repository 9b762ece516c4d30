import { Writable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { createTestIssuer, type TestIssuer } from '@rm/testkit';
import { createLogger, createService, createTokenVerifier, type ReadinessCheck } from '../src/index.js';

export const BASE_PATH = '/resource-management/v1';

/** Collects every log line the service writes, parsed. */
export function logCapture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return {
    destination,
    text: () => lines.join('\n'),
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

export interface TestService {
  app: FastifyInstance;
  issuer: TestIssuer;
  logs: ReturnType<typeof logCapture>;
  /** `Authorization` header with a fresh token of `tenant`. */
  bearer(tenant?: string): Promise<{ authorization: string }>;
}

/** A real service with `routes`, verifying tokens of a test issuer and logging into memory. */
export async function buildTestService(
  routes: FastifyPluginAsync = async () => {},
  options: { readiness?: Record<string, ReadinessCheck>; bodyLimit?: number; issuer?: TestIssuer } = {},
): Promise<TestService> {
  const issuer = options.issuer ?? (await createTestIssuer());
  const logs = logCapture();
  const app = createService({
    logger: createLogger({ level: 'info', name: 'service-kit-test', destination: logs.destination }),
    verifyToken: createTokenVerifier({ jwks: issuer.jwks, issuer: issuer.issuer, audience: issuer.audience }),
    readiness: options.readiness ?? {},
    basePath: BASE_PATH,
    bodyLimit: options.bodyLimit ?? 1_048_576,
    requestTimeout: 30_000,
    readinessTimeout: 500,
    routes,
  });
  await app.ready();
  return {
    app,
    issuer,
    logs,
    bearer: async (tenant = 'tenant-a') => ({ authorization: `Bearer ${await issuer.mint({ tenant })}` }),
  };
}
