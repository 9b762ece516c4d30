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

/** What useWorld starts: anything it can close. */
interface Closable {
  close(): Promise<unknown>;
}

/** A harness, as far as useWorld makes clients of it. */
interface Tenanted {
  as(tenant: string): Promise<Record<string, string>>;
}

/**
 * What `start` makes (a service, a harness, a world of several, a server) shared by the tests of the
 * block this is called in: started before them, closed after them. With `clientOf`, also a client of the
 * world's harness for each of `tenants`. World and clients are stand-ins for what beforeAll makes, so the
 * file names them once, as it would variables that its own beforeAll sets; like those, they are there to
 * read from the hooks declared after this call, and from the tests.
 */
export function useWorld<World extends Closable>(start: () => Promise<World>): { world: World };
export function useWorld<
  World extends Closable & { harness: Tenanted },
  Client extends object,
  Tenants extends string[],
>(
  start: () => Promise<World>,
  clientOf: (harness: World['harness'], headers: Record<string, string>) => Client,
  ...tenants: Tenants
): { world: World; clients: ClientsOf<Tenants, Client> };
export function useWorld(
  start: () => Promise<Closable & { harness?: Tenanted }>,
  clientOf?: (harness: unknown, headers: Record<string, string>) => object,
  ...tenants: string[]
): { world: object; clients: object[] } {
  let world: Awaited<ReturnType<typeof start>> | undefined;
  const clients: object[] = [];
  beforeAll(async () => {
    world = await start();
    if (clientOf === undefined) return;
    // the overload that takes clientOf takes only a world with a harness
    const harness = world.harness as Tenanted;
    for (const tenant of tenants) clients.push(clientOf(harness, await harness.as(tenant)));
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
    clients: tenants.map((tenant, index) => standIn(() => made(`the client of ${tenant}`, clients[index]))),
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
