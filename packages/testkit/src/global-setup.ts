import { describeServers } from './describe-servers.js';
import { startRunServers } from './run-servers.js';

/**
 * vitest globalSetup: uses MONGO_URL / NATS_URL when both are set (silently), otherwise starts the
 * missing servers, exports their URLs to the test workers and prints which servers the tests run on.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const servers = await startRunServers();
  if (servers.fromEnvironment) return undefined;
  // Test workers start after the global setup and inherit this environment.
  process.env.MONGO_URL = servers.mongoUrl;
  process.env.NATS_URL = servers.natsUrl;
  try {
    console.log(`tests run on: ${await describeServers(servers)}`);
  } catch (error) {
    await servers.stop();
    throw error;
  }
  return servers.stop;
}
