import { connect, type NatsConnection, type Status } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { NatsConnectError } from './errors.js';

export interface NatsConnectionOptions {
  servers: string | string[];
  /** Client name shown in the server's connection list (the service name). */
  name: string;
  logger: Logger;
}

/** Connects to NATS, reconnecting forever after the first success, and logs connection changes. */
export async function connectNats({ servers, name, logger }: NatsConnectionOptions): Promise<NatsConnection> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers, name, maxReconnectAttempts: -1 });
  } catch (err) {
    throw new NatsConnectError(servers, { cause: err });
  }
  logger.info({ server: nc.getServer() }, 'nats connected');
  void logStatus(nc, logger);
  return nc;
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
