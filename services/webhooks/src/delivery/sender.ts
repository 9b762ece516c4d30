import { Agent, request } from 'undici';
import { signedHeaders } from '../domain/signature.js';
import { publicOnlyLookup, urlRefusal, type TargetPolicy } from './target-policy.js';
import { createTenantPools } from './tenant-pools.js';

export interface SenderOptions {
  policy: TargetPolicy;
  /** The longest an attempt waits to connect, for the answer's headers, and for each part of its body. */
  timeoutMs: number;
  /** Bytes of an answer read (and dropped); a longer one is cut off, and still counts by its status. */
  maxResponseBytes: number;
  /** Connections per receiver's origin in a tenant's pool: at least the tenant's attempts at once, so that none waits on its own pool. */
  connectionsPerTenant: number;
  /** Tenants' pools open at most: as many as attempts may be under way at once (tenant-pools.ts says why). */
  maxPools: number;
}

/** A tenant's pool without attempts for this long is closed, with the keep-alive connections it still holds. */
const IDLE_POOL_MS = 60_000;

export interface Delivery {
  tenant: string;
  url: string;
  secret: string;
  webhookId: string;
  body: string;
}

export type AttemptResult = { delivered: boolean; status?: number; error?: string; durationMs: number };

/**
 * Sends one attempt of a delivery: a signed POST, no redirect followed, within the time and size limits,
 * over its tenant's own connections (a tenant whose receivers hang never holds another's, even on a shared host).
 */
export function createSender({ policy, timeoutMs, maxResponseBytes, connectionsPerTenant, maxPools }: SenderOptions) {
  // every pool connects the same way: the public policy checks the addresses each connection is made to
  const pools = createTenantPools(
    () =>
      new Agent({
        connect: { timeout: timeoutMs, ...(policy === 'public' ? { lookup: publicOnlyLookup } : {}) },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        connections: connectionsPerTenant,
      }),
    { maxPools, idleMs: IDLE_POOL_MS },
  );

  async function send(delivery: Delivery): Promise<AttemptResult> {
    const refusal = urlRefusal(delivery.url, policy);
    if (refusal !== undefined) return { delivered: false, error: `the URL ${refusal}`, durationMs: 0 };
    return pools.use(delivery.tenant, (agent) => post(agent, delivery));
  }

  async function post(agent: Agent, delivery: Delivery): Promise<AttemptResult> {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    try {
      const response = await request(delivery.url, {
        method: 'POST',
        dispatcher: agent,
        body: delivery.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'resource-management-webhooks/1',
          ...signedHeaders(delivery.secret, delivery.webhookId, delivery.body, new Date()),
        },
        signal: AbortSignal.timeout(timeoutMs * 2),
      });
      let read = 0;
      for await (const chunk of response.body) {
        read += (chunk as Buffer).length;
        if (read >= maxResponseBytes) {
          response.body.destroy();
          break;
        }
      }
      const delivered = response.statusCode >= 200 && response.statusCode < 300;
      return { delivered, status: response.statusCode, ...(delivered ? {} : { error: `answered ${response.statusCode}` }), durationMs: durationMs() };
    } catch (error) {
      return { delivered: false, error: describe(error), durationMs: durationMs() };
    }
  }

  return { send, close: () => pools.close() };
}

export type Sender = ReturnType<typeof createSender>;

function describe(error: unknown): string {
  const { message, code, cause } = error as { message?: string; code?: string; cause?: unknown };
  if (cause !== undefined) return describe(cause);
  return [code, message].filter((part) => part !== undefined && part !== '').join(': ').slice(0, 300) || 'the attempt failed';
}
