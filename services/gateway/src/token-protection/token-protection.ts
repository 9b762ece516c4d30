import { createHash } from 'node:crypto';
import { JetStreamApiError, StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { declareStream } from '@rm/bus';
import { ServiceUnavailable, type Logger } from '@rm/service-kit';
import { addressKey } from './address-key.js';

/**
 * The token endpoint's protection (spec: Token endpoint protection), shared by every gateway
 * replica through NATS JetStream, none of it in process memory:
 * - the rate: each request publishes to its IP's subject of a stream that keeps messages one
 *   second and refuses more than the limit per subject, so the server counts for every replica;
 *   the same per client id, whatever addresses its requests come from, before its secret is hashed;
 * - failed logins: the same over LOGIN_FAILURE_WINDOW_MS; the failure the stream refuses is the
 *   one that reaches the limit, and blocks the IP;
 * - blocks: a key-value bucket every replica watches, so a block holds everywhere within moments.
 */
export interface TokenProtection {
  /** Counts a token request from the IP; false when it is over the rate (429). */
  admit(ip: string): Promise<boolean>;
  /** Counts a token request naming the client id (known or not); false when it is over its rate (429). */
  admitClient(clientId: string): Promise<boolean>;
  /** Counts a failed login from the IP; the one that reaches the limit blocks it. */
  recordFailure(ip: string): Promise<void>;
  isBlocked(ip: string): boolean;
  /** Fails once the blocks of other replicas no longer arrive (for /readyz). */
  readiness(): Promise<void>;
  stop(): Promise<void>;
}

export interface TokenProtectionLimits {
  ratePerSecond: number;
  clientRatePerSecond: number;
  failureLimit: number;
  failureWindowMs: number;
  blockMs: number;
}

export interface TokenProtectionOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  limits: TokenProtectionLimits;
  replicas: number;
  logger: Logger;
}

const RATE_STREAM = 'RM_GATEWAY_TOKEN_RATE';
const CLIENT_RATE_STREAM = 'RM_GATEWAY_CLIENT_TOKEN_RATE';
const FAILURE_STREAM = 'RM_GATEWAY_LOGIN_FAILURES';
const BLOCK_BUCKET = 'rm_gateway_blocked_ips';
const RATE_SUBJECT = 'rm-gateway-guard.rate';
const CLIENT_RATE_SUBJECT = 'rm-gateway-guard.client-rate';
const FAILURE_SUBJECT = 'rm-gateway-guard.failure';
/** JetStream's code for a refused store; only its per-subject form means "the limit is reached". */
const STORE_REFUSED = 10077;
const PER_SUBJECT_LIMIT = 'maximum messages per subject exceeded';
/**
 * Bounds of the in-memory streams, which the server reserves when they are created: room for the
 * counts of 100,000 addresses at the default limits, small beside a server's memory store.
 */
const GUARD_STREAM_BOUNDS = { maxBytes: 64 * 1024 ** 2, maxMsgs: 5_000_000 };
const PUBLISH_TIMEOUT_MS = 2_000;

export async function startTokenProtection({ js, jsm, limits, replicas, logger }: TokenProtectionOptions): Promise<TokenProtection> {
  const second = 1_000;
  const perSecond = (name: string, subject: string, description: string, limit: number) =>
    declareStream(jsm, {
      name,
      subjects: [`${subject}.*`],
      description,
      maxAgeMs: second,
      duplicateWindowMs: second,
      maxMsgsPerSubject: limit,
      inMemory: true,
      replicas,
      ...GUARD_STREAM_BOUNDS,
    });
  /** The counting streams, in memory: a restarted nats-server has lost them, and they are declared again (count()). */
  const declareCountingStreams = async () => {
    await perSecond(RATE_STREAM, RATE_SUBJECT, 'Token requests per source IP in the last second (gateway rate limit)', limits.ratePerSecond);
    await perSecond(CLIENT_RATE_STREAM, CLIENT_RATE_SUBJECT, 'Token requests per client id in the last second (gateway rate limit)', limits.clientRatePerSecond);
    await declareStream(jsm, {
      name: FAILURE_STREAM,
      subjects: [`${FAILURE_SUBJECT}.*`],
      description: 'Failed logins per source IP in the failure window (gateway IP block)',
      maxAgeMs: limits.failureWindowMs,
      duplicateWindowMs: Math.min(limits.failureWindowMs, 60_000),
      // the failure that would be the limit-th is refused: that one blocks
      maxMsgsPerSubject: limits.failureLimit - 1,
      inMemory: true,
      replicas,
      ...GUARD_STREAM_BOUNDS,
    });
  };
  await declareCountingStreams();
  // An existing bucket keeps its first TTL (@nats-io/kv opens it as it is); the TTL only cleans up,
  // each block carries its own end.
  const blocks = await new Kvm(js).create(BLOCK_BUCKET, { ttl: limits.blockMs, history: 1, storage: StorageType.File, replicas });
  const blockedUntil = new Map<string, number>();
  const watcher = await blocks.watch();
  let watching = true;
  void (async () => {
    for await (const entry of watcher) {
      if (entry.operation !== 'PUT') blockedUntil.delete(entry.key);
      else {
        const until = blockEnd(entry.string());
        if (until === undefined) logger.warn({ key: entry.key }, 'a malformed block entry was ignored');
        else blockedUntil.set(entry.key, until);
      }
    }
  })()
    .catch((error: unknown) => logger.error({ err: error }, 'watching the blocked IPs failed'))
    .finally(() => {
      watching = false;
    });

  let redeclaring: Promise<void> | undefined;

  /** Publishes one count; false when the subject's limit is reached. */
  async function count(subject: string): Promise<boolean> {
    const publish = async () => void (await js.publish(subject, undefined, { timeout: PUBLISH_TIMEOUT_MS }));
    try {
      await publish();
      return true;
    } catch (error) {
      if (isLimitReached(error)) return false;
    }
    // No stream took it: after a restart of the server, the in-memory streams are gone until declared
    // again (once for every request waiting on it); else the server is down, and this fails as fast.
    try {
      redeclaring ??= declareCountingStreams().finally(() => (redeclaring = undefined));
      await redeclaring;
      await publish();
      return true;
    } catch (error) {
      if (isLimitReached(error)) return false;
      throw new ServiceUnavailable('The token endpoint cannot check its request limits right now; retry later.', { cause: error });
    }
  }

  return {
    admit: (ip) => count(`${RATE_SUBJECT}.${ipKey(ip)}`),
    admitClient: (clientId) => count(`${CLIENT_RATE_SUBJECT}.${clientKey(clientId)}`),
    async recordFailure(ip) {
      if (await count(`${FAILURE_SUBJECT}.${ipKey(ip)}`)) return;
      const until = Date.now() + limits.blockMs;
      await block(blocks, ip, until);
      blockedUntil.set(ipKey(ip), until);
      logger.warn({ ip, blockedForMs: limits.blockMs }, 'IP blocked after repeated failed logins');
    },
    isBlocked(ip) {
      // asked on every request the gateway serves: no address work while nobody is blocked
      if (blockedUntil.size === 0) return false;
      const key = ipKey(ip);
      const until = blockedUntil.get(key);
      if (until === undefined) return false;
      if (until > Date.now()) return true;
      blockedUntil.delete(key);
      return false;
    },
    async readiness() {
      if (!watching) throw new Error('the blocked IPs are no longer watched');
    },
    async stop() {
      watcher.stop();
    },
  };
}

function isLimitReached(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === STORE_REFUSED && error.message.includes(PER_SUBJECT_LIMIT);
}

function blockEnd(value: string): number | undefined {
  try {
    const { until } = JSON.parse(value) as { until?: unknown };
    return typeof until === 'number' ? until : undefined;
  } catch {
    return undefined;
  }
}

async function block(blocks: KV, ip: string, until: number): Promise<void> {
  try {
    await blocks.put(ipKey(ip), JSON.stringify({ ip, until }));
  } catch (error) {
    throw new ServiceUnavailable('The token endpoint cannot record a block right now; retry later.', { cause: error });
  }
}

/** One subject token per client id of any length and characters: its digest. */
function clientKey(clientId: string): string {
  return createHash('sha256').update(clientId).digest('hex');
}

/** One subject token and key per address (or IPv6 /64), whatever characters it has (`.`, `:`, `/`). */
function ipKey(ip: string): string {
  return Buffer.from(addressKey(ip)).toString('hex');
}
