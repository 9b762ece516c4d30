import { connect } from '@nats-io/transport-node';
import { MongoClient } from 'mongodb';
import { testNatsAdmin } from './test-nats-access.js';
import type { TestServerUrls } from './test-servers.js';
import { hostOf } from './url-host.js';

export interface DescribedServers extends TestServerUrls {
  /** What the MongoDB-compatible server keeps its data in, when it was started for the run. */
  mongoBackend?: string | undefined;
}

/**
 * One line naming the servers a run uses, asked from the servers themselves, e.g.
 * "FerretDB v1.24.2 (MongoDB 7.0.42 wire) on PostgreSQL 15.20 (database rm_test_…) at 127.0.0.1:27099;
 * nats-server 2.12.8 with JetStream at 127.0.0.1:4299". FerretDB does not say which backend it runs
 * on: `mongoBackend` does.
 */
export async function describeServers(servers: DescribedServers): Promise<string> {
  const [mongo, nats] = await Promise.all([
    describeMongo(servers.mongoUrl, servers.mongoBackend),
    describeNats(servers.natsUrl),
  ]);
  return `${mongo}; ${nats}`;
}

async function describeMongo(url: string, backend: string | undefined): Promise<string> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    // FerretDB answers buildInfo with the MongoDB version it emulates plus its own.
    const server =
      typeof info.ferretdbVersion === 'string'
        ? `FerretDB ${info.ferretdbVersion} (MongoDB ${info.version} wire)`
        : `MongoDB ${info.version}`;
    return `${server}${backend === undefined ? '' : ` on ${backend}`} at ${hostOf(url)}`;
  } finally {
    await client.close();
  }
}

async function describeNats(url: string): Promise<string> {
  const nc = await connect({ servers: url, ...testNatsAdmin() });
  try {
    const jetStream = nc.info?.jetstream === true ? 'with JetStream' : 'WITHOUT JetStream';
    return `nats-server ${nc.info?.version ?? 'of unknown version'} ${jetStream} at ${hostOf(url)}`;
  } finally {
    await nc.close();
  }
}
