import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { testServers, uniqueName } from '@rm/testkit';
import { startStack, throwawayStackOptions, type Stack } from '../../../scripts/stack.ts';

/** The whole stack as `npm start` runs it (scripts/stack.ts), on free ports with fresh databases, and a client of a new tenant. */
export interface ClientStack {
  stack: Stack;
  baseUrl: string;
  tokenUrl: string;
  /** A client of a tenant of its own. */
  newClient(): Promise<{ clientId: string; clientSecret: string }>;
  stop(): Promise<void>;
}

export async function startClientStack(gatewayVariables: Record<string, string>): Promise<ClientStack> {
  const servers = testServers();
  const stack = await startStack({ ...throwawayStackOptions(servers, 'client'), gatewayVariables });
  return {
    stack,
    baseUrl: stack.api,
    tokenUrl: `${stack.gateway}/oauth2/token`,
    async newClient() {
      const tenant = uniqueName('client').replaceAll('_', '-');
      const client = { clientId: `${tenant}-client`, clientSecret: randomBytes(24).toString('hex') };
      await stack.ensureClient(tenant, client.clientId, client.clientSecret);
      return client;
    },
    async stop() {
      await stack.stop();
      const mongo = new MongoClient(servers.mongoUrl);
      try {
        for (const database of Object.values(stack.databases)) await mongo.db(database).dropDatabase();
      } finally {
        await mongo.close();
      }
    },
  };
}
