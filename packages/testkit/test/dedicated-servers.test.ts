import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  describeServers,
  type NatsServerHandle,
  type RestartableServerHandle,
  type ServerHandle,
  startMongoServer,
  startNatsServer,
  testNatsAdmin,
  uniqueName,
} from '../src/index.js';

async function withNats<T>(url: string, use: (nc: NatsConnection) => Promise<T>): Promise<T> {
  const nc = await connect({ servers: url, ...testNatsAdmin() });
  try {
    return await use(nc);
  } finally {
    await nc.close();
  }
}

async function addStreamAndPublish(url: string, stream: string, payload: string): Promise<void> {
  await withNats(url, async (nc) => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`], storage: 'file' });
    await jetstream(nc).publish(`${stream}.created`, payload, { msgID: 'm1' });
  });
}

async function readFirstMessage(url: string, stream: string): Promise<string | undefined> {
  return withNats(url, async (nc) => {
    const jsm = await jetstreamManager(nc);
    const message = await jsm.streams.getMessage(stream, { seq: 1 });
    return message?.string();
  });
}

describe('a dedicated MongoDB-compatible server', () => {
  let mongo: RestartableServerHandle;
  beforeAll(async () => {
    mongo = await startMongoServer();
  });
  afterAll(async () => {
    await mongo?.stop();
  });

  test('stores and returns a document', async () => {
    const client = new MongoClient(mongo.url);
    try {
      const collection = client.db(uniqueName('testkit')).collection('things');
      await collection.insertOne({ _id: 'a' as never, name: 'first' });
      expect(await collection.findOne({ _id: 'a' as never })).toEqual({ _id: 'a', name: 'first' });
    } finally {
      await client.close();
    }
  });

  test('is a new server, not the one of the run', () => {
    expect(mongo.url).not.toBe(process.env.MONGO_URL);
  });

  test('goes away on kill() and comes back on start() with its data, on the same port', async () => {
    const database = uniqueName('testkit');
    const write = new MongoClient(mongo.url);
    try {
      await write.db(database).collection('things').insertOne({ _id: 'kept' as never, name: 'before the outage' });
    } finally {
      await write.close();
    }
    await mongo.kill();
    const during = new MongoClient(mongo.url, { serverSelectionTimeoutMS: 300 });
    try {
      await expect(during.db(database).command({ ping: 1 })).rejects.toThrow();
    } finally {
      await during.close();
    }
    await mongo.start();
    const after = new MongoClient(mongo.url);
    try {
      expect(await after.db(database).collection('things').findOne({ _id: 'kept' as never })).toEqual({ _id: 'kept', name: 'before the outage' });
    } finally {
      await after.close();
    }
  });
});

describe('a dedicated nats-server', () => {
  let nats: NatsServerHandle;
  let mongo: ServerHandle;
  beforeAll(async () => {
    [nats, mongo] = await Promise.all([startNatsServer(), startMongoServer()]);
  });
  afterAll(async () => {
    await Promise.all([nats?.stop(), mongo?.stop()]);
  });

  test('stores and returns a JetStream message', async () => {
    const stream = uniqueName('published');
    await addStreamAndPublish(nats.url, stream, 'hello');
    expect(await readFirstMessage(nats.url, stream)).toBe('hello');
  });

  test('keeps its JetStream data across a restart on the same port', async () => {
    const stream = uniqueName('restarted');
    await addStreamAndPublish(nats.url, stream, 'before restart');

    await nats.restart();

    expect(await readFirstMessage(nats.url, stream)).toBe('before restart');
  });

  test('refuses connections between kill() and start(), then serves the same data', async () => {
    const stream = uniqueName('outage');
    await addStreamAndPublish(nats.url, stream, 'before outage');

    await nats.kill();
    await expect(connect({ servers: nats.url, reconnect: false, timeout: 1_000 })).rejects.toThrow();
    await nats.start();

    expect(await readFirstMessage(nats.url, stream)).toBe('before outage');
  });

  test('describeServers names FerretDB with its backend, and the nats-server version', async () => {
    const line = await describeServers({ mongoUrl: mongo.url, mongoBackend: mongo.backend, natsUrl: nats.url });
    expect(line).toMatch(
      /^(FerretDB v\d+\.\d+\.\d+ \(MongoDB \d+\.\d+\.\d+ wire\) on (PostgreSQL|SQLite) .+|MongoDB \d+\.\d+\.\d+) at 127\.0\.0\.1:\d+;/,
    );
    expect(line).toMatch(/nats-server \d+\.\d+\.\d+ with JetStream at 127\.0\.0\.1:\d+$/);
  });
});

describe('a nats-server with a given store directory', () => {
  let storeDir: string;
  beforeAll(async () => {
    storeDir = await mkdtemp(join(tmpdir(), 'testkit-store-'));
  });
  afterAll(async () => {
    await rm(storeDir, { recursive: true, force: true });
  });

  test('leaves the directory in place, so a later server finds the same streams', async () => {
    const stream = uniqueName('kept');
    const first = await startNatsServer({ storeDir });
    try {
      await addStreamAndPublish(first.url, stream, 'kept');
    } finally {
      await first.stop();
    }
    expect((await stat(storeDir)).isDirectory()).toBe(true);

    const second = await startNatsServer({ storeDir });
    try {
      expect(await readFirstMessage(second.url, stream)).toBe('kept');
    } finally {
      await second.stop();
    }
  });
});
