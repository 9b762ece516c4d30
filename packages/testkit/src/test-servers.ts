import { loadTestkitConfig } from './config.js';
import { TestServersMissingError } from './errors.js';

export interface TestServerUrls {
  mongoUrl: string;
  natsUrl: string;
}

/** The shared servers of this test run, as set by the global setup (or rm-with-servers). */
export function testServers(): TestServerUrls {
  const { mongoUrl, natsUrl } = loadTestkitConfig();
  if (mongoUrl === undefined || natsUrl === undefined) {
    throw new TestServersMissingError([
      ...(mongoUrl === undefined ? ['MONGO_URL'] : []),
      ...(natsUrl === undefined ? ['NATS_URL'] : []),
    ]);
  }
  return { mongoUrl, natsUrl };
}
