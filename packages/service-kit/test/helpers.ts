import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
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
  options: {
    readiness?: Record<string, ReadinessCheck>;
    bodyLimit?: number;
    issuer?: TestIssuer;
    trustProxy?: readonly string[];
    metrics?: Registry;
    headersTimeout?: number;
  } = {},
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
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.headersTimeout && { headersTimeout: options.headersTimeout }),
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
 * A connection to a listening service; `responses` are all it answered, read until the server
 * closes the connection.
 */
export function openRawConnection(port: number): { socket: Socket; responses: Promise<RawResponse[]> } {
  const socket = connect(port, '127.0.0.1');
  const responses = new Promise<RawResponse[]>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseRawResponses(Buffer.concat(chunks))));
  });
  return { socket, responses };
}

/** Writes `text` as is, for requests that inject() cannot make (no Host, malformed request lines). */
export async function sendRawHttp(port: number, text: string): Promise<RawResponse> {
  const { socket, responses } = openRawConnection(port);
  socket.end(text);
  const [response] = await responses;
  if (response === undefined) throw new Error('the server closed the connection without answering');
  return response;
}

/** Status, lower-cased headers and body of each HTTP/1.1 response, all with a Content-Length. */
function parseRawResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  for (let rest = bytes; rest.length > 0; ) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...headerLines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const bodyEnd = headEnd + 4 + Number(headers['content-length'] ?? 0);
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.subarray(headEnd + 4, bodyEnd).toString('utf8') });
    rest = rest.subarray(bodyEnd);
  }
  return responses;
}

/** A promise and the function that resolves it, to hold a request or a step until a test lets it go. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** The same bytes spelled another way: the last character's unused low bit set, which Node's decoder ignores. */
export function withTrailingBitSet(base64url: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return `${base64url.slice(0, -1)}${alphabet[alphabet.indexOf(base64url.at(-1) ?? '') ^ 1]}`;
}
