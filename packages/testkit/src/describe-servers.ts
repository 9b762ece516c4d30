import { connect } from '@nats-io/transport-node';
import { MongoClient } from 'mongodb';
import type { TestServerUrls } from './test-servers.js';

/**
 * One line naming the servers a run uses, asked from the servers themselves, e.g.
 * "FerretDB v1.24.2 (MongoDB 7.0.42 wire) at 127.0.0.1:27099; nats-server 2.12.8 with JetStream at 127.0.0.1:4299".
 */
export async function describeServers(urls: TestServerUrls): Promise<string> {
  const [mongo, nats] = await Promise.all([describeMongo(urls.mongoUrl), describeNats(urls.natsUrl)]);
  return `${mongo}; ${nats}`;
}

async function describeMongo(url: string): Promise<string> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    // FerretDB answers buildInfo with the MongoDB version it emulates plus its own.
    const server =
      typeof info.ferretdbVersion === 'string'
        ? `FerretDB ${info.ferretdbVersion} (MongoDB ${info.version} wire)`
        : `MongoDB ${info.version}`;
    return `${server} at ${hostOf(url)}`;
  } finally {
    await client.close();
  }
}

async function describeNats(url: string): Promise<string> {
  const nc = await connect({ servers: url });
  try {
    const jetStream = nc.info?.jetstream === true ? 'with JetStream' : 'WITHOUT JetStream';
    return `nats-server ${nc.info?.version ?? 'of unknown version'} ${jetStream} at ${hostOf(url)}`;
  } finally {
    await nc.close();
  }
}

/** host:port of a URL, leaving out credentials and options. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.replace(/^[a-z+]+:\/\/([^@/]*@)?/i, '').split('/')[0] ?? url;
  }
}
