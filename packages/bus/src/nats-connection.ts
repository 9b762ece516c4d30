import { setTimeout as sleep } from 'node:timers/promises';
import { connect, nkeyAuthenticator, type ConnectionOptions, type NatsConnection, type Status } from '@nats-io/transport-node';
import { inboxPrefix } from '@rm/nats-access';
import type { Logger } from 'pino';
import { NatsConnectError } from './errors.js';

/** Who connects (a user of @rm/nats-access's grants) and how it proves it. */
export interface NatsAccess {
  user: string;
  /** Development and tests. */
  password?: string;
  /** Production: an nkey user seed (`SU…`), whose public key the server holds. */
  nkeySeed?: string;
  /** The CA that signed the server's certificate: the connection then requires TLS. */
  tlsCaFile?: string;
}

/** The access that the NATS_* variables (service-kit's natsConfigSpec) describe. */
export function natsAccess(config: { NATS_USER: string; NATS_PASSWORD?: string | undefined; NATS_NKEY_SEED?: string | undefined; NATS_TLS_CA_FILE?: string | undefined }): NatsAccess {
  return {
    user: config.NATS_USER,
    ...(config.NATS_PASSWORD === undefined ? {} : { password: config.NATS_PASSWORD }),
    ...(config.NATS_NKEY_SEED === undefined ? {} : { nkeySeed: config.NATS_NKEY_SEED }),
    ...(config.NATS_TLS_CA_FILE === undefined ? {} : { tlsCaFile: config.NATS_TLS_CA_FILE }),
  };
}

export interface NatsConnectionOptions {
  servers: string | string[];
  /** Unset: anonymous, which a server with authorization refuses (tests of that). */
  access?: NatsAccess;
  /** Client name shown in the server's connection list (the service name). */
  name: string;
  logger: Logger;
  /** Attempts before giving up; a pod that starts before NATS waits for it (default 30). */
  attempts?: number;
  retryDelayMs?: number;
}

/**
 * Connects to NATS, retrying a few times as the database connection does, then reconnecting forever
 * after the first success; logs connection changes.
 */
export async function connectNats({ servers, access, name, logger, attempts = 30, retryDelayMs = 1000 }: NatsConnectionOptions): Promise<NatsConnection> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      // noAsyncTraces: each publish and request otherwise builds an Error for its call site, a tenth of
      // the matching engine's time outside its matcher during a bulk import (bench/README.md)
      const nc = await connect({ servers, name, maxReconnectAttempts: -1, noAsyncTraces: true, ...(access === undefined ? {} : accessOptions(access)) });
      logger.info({ server: nc.getServer(), attempt }, 'nats connected');
      void logStatus(nc, logger);
      return nc;
    } catch (err) {
      if (attempt >= attempts) throw new NatsConnectError(servers, { cause: err });
      logger.warn({ err, attempt, attempts }, 'nats not reachable yet, retrying');
      await sleep(retryDelayMs);
    }
  }
}

function accessOptions({ user, password, nkeySeed, tlsCaFile }: NatsAccess): ConnectionOptions {
  return {
    // its permissions allow it to subscribe to its own inboxes only
    inboxPrefix: inboxPrefix(user),
    ...(nkeySeed === undefined ? { user, pass: password } : { authenticator: nkeyAuthenticator(new TextEncoder().encode(nkeySeed)) }),
    ...(tlsCaFile === undefined ? {} : { tls: { caFile: tlsCaFile } }),
  };
}

async function logStatus(nc: NatsConnection, logger: Logger): Promise<void> {
  // the iterator ends when the connection closes
  for await (const status of nc.status()) logStatusEvent(status, logger);
}

function logStatusEvent(status: Status, logger: Logger): void {
  switch (status.type) {
    case 'disconnect':
      logger.warn({ server: status.server }, 'nats disconnected');
      break;
    case 'reconnect':
      logger.info({ server: status.server }, 'nats reconnected');
      break;
    case 'error':
      logger.error({ err: status.error }, 'nats connection error');
      break;
    case 'ldm':
      logger.warn({ server: status.server }, 'nats server entering lame duck mode');
      break;
    case 'staleConnection':
      logger.warn('nats connection stale');
      break;
    case 'slowConsumer':
      logger.warn({ subject: status.sub.getSubject(), pending: status.pending }, 'nats slow consumer');
      break;
    case 'close':
      logger.info('nats connection closed');
      break;
    default:
      logger.debug({ status }, 'nats status');
  }
}
