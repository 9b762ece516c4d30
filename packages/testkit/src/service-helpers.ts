import { afterAll, beforeAll } from 'vitest';
import { startNatsServer } from './nats-server.js';
import { connectTestNats, type TestNats } from './test-nats.js';

export { BASE } from './service-harness.js';

/** The JSON body of an answer. */
export function json<T = Record<string, unknown>>(response: { body: string }): T {
  return JSON.parse(response.body) as T;
}

/**
 * Stands in for an object made later (in a beforeAll hook), so that a test file can name it while it
 * loads: every property read goes to `current()`, which throws while there is nothing yet.
 */
function standIn<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(current(), key),
    has: (_, key) => Reflect.has(current(), key),
  });
}

/** A client for each tenant, in their order. */
type ClientsOf<Tenants extends string[], Client> = { [K in keyof Tenants]: Client };

/**
 * A world (a harness and what the tests need beside it) shared by the tests of the block this is
 * called in: started before them, closed after them, with `clientOf` its harness for each of `tenants`.
 * World and clients are stand-ins for what beforeAll makes, so the file names them once, as it would
 * variables that its own beforeAll sets; like those, they are there to read once the tests run.
 */
export function useWorld<
  World extends { harness: { as(tenant: string): Promise<Record<string, string>> }; close(): Promise<unknown> },
  Client extends object,
  Tenants extends string[],
>(
  start: () => Promise<World>,
  clientOf: (harness: World['harness'], headers: Record<string, string>) => Client,
  ...tenants: Tenants
): { world: World; clients: ClientsOf<Tenants, Client> } {
  let world: World | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    world = await start();
    for (const tenant of tenants) clients.push(clientOf(world.harness, await world.harness.as(tenant)));
  });
  afterAll(async () => {
    await world?.close();
  });
  const made = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`${what} is read before the beforeAll that starts it has run, or after it failed`);
    return value;
  };
  return {
    world: standIn(() => made('the world', world)),
    clients: tenants.map((tenant, index) => standIn(() => made(`the client of ${tenant}`, clients[index]))) as ClientsOf<Tenants, Client>,
  };
}

/** A harness on a nats-server of its own, and a client of that server. */
export interface OnOwnNats<Harness> {
  harness: Harness;
  nats: TestNats;
  /** Closes the harness, the client and the server. */
  close(): Promise<void>;
}

/**
 * A nats-server for one test file and a harness on it (`start` gets its url), then a client of it
 * that `prepare` is given (to declare the streams the test publishes onto, say). On the run's shared
 * server the service's consumers would start from the first of every event the other files published.
 * A failure on the way closes what had started.
 */
export async function startOnOwnNats<Harness extends { close(): Promise<void> }>(
  start: (natsUrl: string) => Promise<Harness>,
  prepare: (nats: TestNats) => Promise<void>,
): Promise<OnOwnNats<Harness>> {
  const server = await startNatsServer();
  let harness: Harness | undefined;
  let nats: TestNats | undefined;
  const close = async () => {
    await harness?.close();
    await nats?.close();
    await server.stop();
  };
  try {
    harness = await start(server.url);
    nats = await connectTestNats({ url: server.url });
    await prepare(nats);
    return { harness, nats, close };
  } catch (error) {
    await close();
    throw error;
  }
}
