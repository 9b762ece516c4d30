import { Agent, request } from 'undici';
import { signedHeaders } from '../domain/signature.js';
import { publicOnlyLookup, urlRefusal, type TargetPolicy } from './target-policy.js';

export interface SenderOptions {
  policy: TargetPolicy;
  /** The longest an attempt waits to connect, for the answer's headers, and for each part of its body. */
  timeoutMs: number;
  /** Bytes of an answer read (and dropped); a longer one is cut off, and still counts by its status. */
  maxResponseBytes: number;
}

export interface Delivery {
  url: string;
  secret: string;
  webhookId: string;
  body: string;
}

export type AttemptResult = { delivered: boolean; status?: number; error?: string; durationMs: number };

/** Sends one attempt of a delivery: a signed POST, no redirect followed, within the time and size limits. */
export function createSender({ policy, timeoutMs, maxResponseBytes }: SenderOptions) {
  const agent = new Agent({
    connect: { timeout: timeoutMs, ...(policy === 'public' ? { lookup: publicOnlyLookup } : {}) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // receivers are many and mostly idle: few connections kept per origin
    connections: 4,
  });

  async function send(delivery: Delivery): Promise<AttemptResult> {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    const refusal = urlRefusal(delivery.url, policy);
    if (refusal !== undefined) return { delivered: false, error: `the URL ${refusal}`, durationMs: 0 };
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

  return { send, close: () => agent.close() };
}

export type Sender = ReturnType<typeof createSender>;

function describe(error: unknown): string {
  const { message, code, cause } = error as { message?: string; code?: string; cause?: unknown };
  if (cause !== undefined) return describe(cause);
  return [code, message].filter((part) => part !== undefined && part !== '').join(': ').slice(0, 300) || 'the attempt failed';
}
