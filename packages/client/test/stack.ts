import { testServers } from '@rm/testkit';
import { createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions, type Stack } from '../../../scripts/stack.ts';

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
      const { clientId, secret } = await createThrowawayTenant(stack, 'client');
      return { clientId, clientSecret: secret };
    },
    stop: () => stopThrowawayStack(stack, servers),
  };
}
