import { connect } from 'node:net';
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
  options: { readiness?: Record<string, ReadinessCheck>; bodyLimit?: number; issuer?: TestIssuer; trustProxy?: readonly string[] } = {},
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
    ...(options.trustProxy && { trustProxy: options.trustProxy }),
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

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `text` as is to a listening service and reads the answer until the server closes the
 * connection: for requests that inject() cannot make (no Host, malformed request lines).
 */
export function sendRawHttp(port: number, text: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseRawResponse(Buffer.concat(chunks).toString('utf8'))));
  });
}

/** Status, lower-cased headers and body of an HTTP/1.1 response with a Content-Length. */
export function parseRawResponse(text: string): RawResponse {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}
