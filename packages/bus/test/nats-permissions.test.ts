import { readFile } from 'node:fs/promises';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { createUser } from '@nats-io/nkeys';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_STREAMS, serviceStream } from '@rm/contracts';
import { developmentAuthorization, NATS_GRANTS, natsAuthorization } from '@rm/nats-access';
import { startNatsServer, testNatsAdmin, testNatsPassword, type NatsServerHandle } from '@rm/testkit';
import { connectNats, declareConsumer, declareServiceStream } from '../src/index.js';

/**
 * The grants of @rm/nats-access on a nats-server configured as every test server is (and production):
 * what each user may do, and what it is refused.
 */
describe('NATS users and their permissions', () => {
  let server: NatsServerHandle;
  let admin: NatsConnection;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    server = await startNatsServer();
    admin = await connect({ servers: server.url, ...testNatsAdmin() });
    // the publishers' streams exist, as their services declare them at start
    const jsm = await jetstreamManager(admin);
    for (const service of ['employees', 'transport-resources', 'deployments', 'planning']) await declareServiceStream(jsm, service);
  });

  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await admin?.close();
    await server?.stop();
  });

  async function connectAs(user: string, password = testNatsPassword()): Promise<NatsConnection> {
    const nc = await connectNats({ servers: server.url, access: { user, password }, name: `${user}-test`, logger: pino({ level: 'silent' }), attempts: 1 });
    connections.push(nc);
    return nc;
  }

  async function storedMessages(stream: string): Promise<number> {
    return (await (await jetstreamManager(admin)).streams.info(stream)).state.messages;
  }

  const event = JSON.stringify({ forged: true });

  // The grants list the feed's streams by hand (contracts depend on nats-access, not the reverse): an event
  // the API comes to expose from another service's stream must be granted too, or its feed and hooks stay silent.
  it('lets the change feed (gateway) and the webhooks read every stream whose events the API exposes', () => {
    for (const user of ['gateway', 'webhooks']) {
      for (const { name } of FEED_STREAMS) expect(NATS_GRANTS[user]?.streams[name], `${user} on ${name}`).toMatch(/^(reads|consumes)$/);
    }
  });

  it('refuses a client without credentials, and one with a wrong password', async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(/Authorization Violation/);
    await expect(connectAs('employees', 'not-the-password')).rejects.toThrow();
  });

  it("lets a service publish its own events, and refuses another service's subject", async () => {
    const js = jetstream(await connectAs('employees'));
    const before = await storedMessages('RM_DEPLOYMENTS');

    await js.publish('rm.employees.t1.employee.updated', event);
    await expect(js.publish('rm.deployments.t1.deployment.created', event, { timeout: 2_000 })).rejects.toThrow();
    await expect(js.publish('rm.planning.t1.planned-route.released', event, { timeout: 2_000 })).rejects.toThrow();

    expect(await storedMessages('RM_DEPLOYMENTS')).toBe(before);
  });

  it('gives the planning platform its own subjects only', async () => {
    const js = jetstream(await connectAs('planning'));
    const before = await storedMessages('RM_EMPLOYEES');

    await js.publish('rm.planning.t1.planned-route.released', event);
    await expect(js.publish('rm.employees.t1.employee.updated', event, { timeout: 2_000 })).rejects.toThrow();

    expect(await storedMessages('RM_EMPLOYEES')).toBe(before);
  });

  it('lets a service read the streams it consumes, and no other', async () => {
    const homeBases = await connectAs('home-bases');
    await declareConsumer(await jetstreamManager(homeBases), 'RM_EMPLOYEES', { durable: 'home-bases-permissions-test', maxDeliver: 1 });
    const consumer = await jetstream(homeBases).consumers.get('RM_EMPLOYEES', 'home-bases-permissions-test');
    const fetched = await consumer.fetch({ max_messages: 1, expires: 1_000 });
    for await (const message of fetched) message.ack();

    const employees = await jetstreamManager(await connectAs('employees'));
    await expect(declareConsumer(employees, 'RM_DEPLOYMENTS', { durable: 'employees-permissions-test', maxDeliver: 1 })).rejects.toThrow();
  });

  it("refuses changing or deleting another's stream, and deleting one's own", async () => {
    const matching = await jetstreamManager(await connectAs('matching'));
    const employees = await jetstreamManager(await connectAs('employees'));

    // matching may create the publishers' streams it sources, as their owners would, but not change them
    await declareServiceStream(matching, 'employees');
    await expect(matching.streams.update('RM_EMPLOYEES', { max_age: 1_000_000_000 })).rejects.toThrow();
    await expect(matching.streams.delete('RM_EMPLOYEES')).rejects.toThrow();
    await expect(employees.streams.delete('RM_EMPLOYEES')).rejects.toThrow();
    await expect(employees.streams.delete('RM_DEPLOYMENTS')).rejects.toThrow();

    expect((await (await jetstreamManager(admin)).streams.info('RM_EMPLOYEES')).config.subjects).toEqual(serviceStream('employees').subjects);
  });

  it("keeps the gateway's blocked addresses the gateway's", async () => {
    const bucket = 'rm_gateway_blocked_ips';
    const gateway = await new Kvm(jetstream(await connectAs('gateway'))).create(bucket, { history: 1 });
    await gateway.put('10_0_0_1', 'blocked');
    const watcher = await gateway.watch();
    for await (const entry of watcher) {
      expect(entry.key).toBe('10_0_0_1');
      break;
    }

    const matching: JetStreamClient = jetstream(await connectAs('matching'));
    await expect(matching.publish(`$KV.${bucket}.10_0_0_2`, 'blocked', { timeout: 2_000 })).rejects.toThrow();
    await expect(new Kvm(matching).open(bucket).then((kv) => kv.get('10_0_0_1'))).rejects.toThrow();
    const stored: string[] = [];
    for await (const key of await (await new Kvm(jetstream(admin)).open(bucket)).keys()) stored.push(key);
    expect(stored).toEqual(['10_0_0_1']);
  });

  it('admits a user by its nkey, as in production, with the same permissions', async () => {
    const keys = new Map(Object.keys(NATS_GRANTS).map((user) => [user, createUser()]));
    const nkeyServer = await startNatsServer({ authorization: natsAuthorization((user) => ({ user, nkey: keys.get(user)!.getPublicKey() })) });
    try {
      const seed = new TextDecoder().decode(keys.get('employees')!.getSeed());
      const nc = await connectNats({ servers: nkeyServer.url, access: { user: 'employees', nkeySeed: seed }, name: 'nkey-test', logger: pino({ level: 'silent' }), attempts: 1 });
      connections.push(nc);
      await declareServiceStream(await jetstreamManager(nc), 'employees');
      await jetstream(nc).publish('rm.employees.t1.employee.updated', event);
      await expect(jetstream(nc).publish('rm.deployments.t1.deployment.created', event, { timeout: 2_000 })).rejects.toThrow();

      const otherSeed = new TextDecoder().decode(createUser().getSeed());
      await expect(connectNats({ servers: nkeyServer.url, access: { user: 'employees', nkeySeed: otherSeed }, name: 'nkey-test', logger: pino({ level: 'silent' }), attempts: 1 })).rejects.toThrow();
    } finally {
      await nkeyServer.stop();
    }
  });

  it("keeps the compose stack's authorization what `npm run nats-users -- development` writes", async () => {
    const committed = await readFile(new URL('../../../deploy/compose/nats-authorization.conf', import.meta.url), 'utf8');
    expect(committed).toBe(developmentAuthorization({ variable: 'NATS_PASSWORD' }));
    // the server reads the password from its environment: the reference is not a quoted string
    expect(committed).toContain('"password": $NATS_PASSWORD,');
  });

  it("refuses listening to events or to another user's answers", async () => {
    const employees = await connectAs('employees');
    for (const subject of ['rm.>', 'rm.deployments.>', '_INBOX.>', '_INBOX_gateway.>', '$KV.>']) {
      const subscription = employees.subscribe(subject);
      await expect((async () => {
        for await (const _message of subscription) return;
      })()).rejects.toThrow(/Permissions Violation/);
    }
  });
});
