import { jetstreamManager } from '@nats-io/jetstream';
import { describe, expect, test } from 'vitest';
import { connectTestMongo, connectTestNats, testServers, uniqueName } from '../src/index.js';

describe('uniqueName', () => {
  test('is the prefix, an underscore and a random part, usable as a database or stream name', () => {
    const name = uniqueName('employees');
    expect(name).toMatch(/^employees_[a-f0-9]{12}$/);
    expect(uniqueName('employees')).not.toBe(name);
  });

  test('replaces unsafe characters and keeps names at most 38 characters long', () => {
    const name = uniqueName('bus.outbox-relay test/with*a>very$long prefix');
    expect(name).toMatch(/^[A-Za-z0-9_]{1,38}$/);
    expect(name.startsWith('bus_outbox_relay_test_')).toBe(true);
  });
});

describe('connections to the servers of the run', () => {
  test('testServers returns the URLs the global setup provided', () => {
    expect(testServers()).toEqual({ mongoUrl: process.env.MONGO_URL, natsUrl: process.env.NATS_URL });
  });

  test('connectTestMongo opens a fresh database and drops it on close', async () => {
    const mongo = await connectTestMongo('testkit');
    const dbName = mongo.db.databaseName;
    expect(dbName).toMatch(/^testkit_[a-f0-9]{12}$/);
    await mongo.db.collection('things').insertOne({ name: 'first' });

    const observer = await connectTestMongo('observer');
    try {
      const before = await observer.client.db().admin().listDatabases({ nameOnly: true });
      expect(before.databases.map((db) => db.name)).toContain(dbName);
      await mongo.close();
      const after = await observer.client.db().admin().listDatabases({ nameOnly: true });
      expect(after.databases.map((db) => db.name)).not.toContain(dbName);
    } finally {
      await observer.close();
    }
  });

  test('connectTestNats connects to a server with JetStream', async () => {
    const { nc, close } = await connectTestNats();
    try {
      const jsm = await jetstreamManager(nc);
      expect((await jsm.getAccountInfo()).limits).toBeDefined();
    } finally {
      await close();
    }
    expect(nc.isClosed()).toBe(true);
  });
});
