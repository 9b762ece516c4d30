import { connect, type NatsConnection } from '@nats-io/transport-node';
import { testNatsAdmin } from './test-nats-access.js';
import { testServers } from './test-servers.js';

export interface TestNats {
  nc: NatsConnection;
  close(): Promise<void>;
}

/**
 * Connects to the run's nats-server (or `url`) as the test admin, who may do anything. Name streams
 * and consumers with uniqueName().
 */
export async function connectTestNats(options: { url?: string } = {}): Promise<TestNats> {
  const nc = await connect({ servers: options.url ?? testServers().natsUrl, ...testNatsAdmin() });
  return {
    nc,
    async close() {
      if (!nc.isClosed()) await nc.close();
    },
  };
}
