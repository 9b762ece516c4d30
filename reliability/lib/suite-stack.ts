// The reliability scenarios' stack: the whole stack as `npm start` runs it (scripts/stack.ts), on free
// ports with fresh databases, with the suite's tenants, tokens, typed clients and the services' error lines.
import { createClient, type ApiClient as TypedClient } from '@rm/client';
import type { TestServerUrls } from '@rm/testkit';
import { BASE_PATH, createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions, type ServiceName, type Stack, type ThrowawayTenant } from '../../scripts/stack.ts';
import { ANSWER_TIMEOUT_MS } from './http.ts';

export { BASE_PATH, type ServiceName } from '../../scripts/stack.ts';
export type { TypedClient };

/** A tenant of the suite with one client. */
export type SuiteTenant = ThrowawayTenant;

/** The stack the reliability scenarios run against, with their tenants and tokens. */
export interface SuiteStack {
  stack: Stack;
  servers: TestServerUrls;
  /** The gateway's SIGNING_KEY_ENCRYPTION_KEY, to read its signing keys as a replica does (forged tokens). */
  signingKeyEncryptionKey: string;
  /** A tenant and client of its own, for one scenario's data. */
  newTenant(prefix: string): Promise<SuiteTenant>;
  /** A token of the tenant's client from the gateway's /oauth2/token, reused until 80 % of its lifetime: for raw requests. */
  token(tenant: SuiteTenant): Promise<string>;
  /**
   * The typed client (@rm/client) of the tenant's client through the gateway, for well-formed calls whose status
   * a scenario does not measure: fixtures and reading back. It has tokens of its own and retries 429, 503 and
   * (when safe) 504 and lost connections, `retries` times (default 4); each attempt waits at most ANSWER_TIMEOUT_MS.
   * `origin`: another process that serves the API (a second matching process).
   */
  client(tenant: SuiteTenant, options?: { retries?: number; origin?: string }): TypedClient;
  /** Services that exited while the suite ran, and how. */
  exits: string[];
  /** Log lines at level error or fatal, per service, since the start. */
  errorLines: Map<ServiceName, string[]>;
  /** Stops the services and drops their databases. */
  stop(): Promise<void>;
}

/** The services log levels by label (service-kit's logger). */
const ERROR_LEVELS = new Set(['error', 'fatal']);

/**
 * The whole stack on free ports with fresh databases, so that it never meets a running dev stack or
 * another test run on the same servers. The gateway trusts 127.0.0.1 as its proxy, so that a scenario
 * can speak for any client address through X-Forwarded-For without blocking the loopback address.
 */
export async function startSuiteStack(servers: TestServerUrls, { echoLogs = false, nodeOptions }: { echoLogs?: boolean; nodeOptions?: string } = {}): Promise<SuiteStack> {
  const exits: string[] = [];
  const errorLines = new Map<ServiceName, string[]>();
  const options = throwawayStackOptions(servers, 'rel');
  const { signingKeyEncryptionKey } = options;
  const stack = await startStack({
    ...options,
    ...(nodeOptions === undefined ? {} : { nodeOptions }),
    // the scenarios push one tenant hard on purpose; rate-limit-fairness gives its tenants rates of their own
    gatewayVariables: { TRUST_PROXY: '127.0.0.1', TENANT_REQUEST_RATE: '100000' },
    onLine(name, line) {
      if (echoLogs) console.error(`[${name}] ${line}`);
      if (ERROR_LEVELS.has(String(parseLine(line)?.level))) errorLines.set(name, [...(errorLines.get(name) ?? []), line]);
    },
    onExit: (name, reason) => exits.push(`${name} exited (${reason})`),
  });
  const tokens = new Map<string, { token: string; renewAt: number }>();

  return {
    stack,
    servers,
    signingKeyEncryptionKey,
    exits,
    errorLines,
    newTenant: (prefix) => createThrowawayTenant(stack, prefix),
    async token({ clientId, secret }) {
      const cached = tokens.get(clientId);
      if (cached !== undefined && cached.renewAt > Date.now()) return cached.token;
      const response = await fetch(`${stack.gateway}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(30_000),
      });
      if (response.status !== 200) throw new Error(`token of ${clientId}: ${response.status} ${await response.text()}`);
      const { access_token: token, expires_in: lifetime } = (await response.json()) as { access_token: string; expires_in: number };
      tokens.set(clientId, { token, renewAt: Date.now() + lifetime * 800 });
      return token;
    },
    client({ clientId, secret }, { retries, origin = stack.gateway } = {}) {
      return createClient({
        baseUrl: `${origin}${BASE_PATH}`,
        tokenUrl: `${stack.gateway}/oauth2/token`,
        clientId,
        clientSecret: secret,
        ...(retries === undefined ? {} : { retries }),
        timeoutMs: ANSWER_TIMEOUT_MS,
      });
    },
    stop: () => stopThrowawayStack(stack, servers),
  };
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
