// Forged events: what a client that reaches NATS could do with no credentials, or with one service's:
// connect anonymously, publish another service's events for a tenant, change or delete streams, write
// the gateway's blocked addresses, listen to every event. Each must be refused, and no forged event may
// be stored (so none is applied). Every user first reads its own stream, so that a refusal is a
// permission's and not a broken credential's.
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefix, NATS_GRANTS, serviceStream } from '@rm/nats-access';
import { TEST_NATS_ADMIN, testNatsPassword } from '@rm/testkit';
import type { Finding, ScenarioReport } from '../lib/report.ts';
import type { SuiteStack } from '../lib/suite-stack.ts';

/** The entity whose events each publisher's consumers apply, to forge in its name. */
const FORGEABLE: Record<string, string> = {
  employees: 'employee',
  'transport-resources': 'transport-resource',
  'home-bases': 'home-base',
  deployments: 'deployment',
  matching: 'resource-combination',
  planning: 'planned-route',
};
const BLOCK_BUCKET = 'rm_gateway_blocked_ips';
const REFUSAL_TIMEOUT_MS = 2_000;

type Rows = [string, string | number][];

export async function forgedEvents(suite: SuiteStack): Promise<ScenarioReport> {
  const started = performance.now();
  const { natsUrl } = suite.servers;
  const tenant = (await suite.newTenant('forged')).tenant;
  const findings: Finding[] = [];
  const counts = { anonymous: 0, controls: 0, controlsFailed: 0, events: 0, eventsAccepted: 0, streams: 0, streamsChanged: 0, blocks: 0, blocksWritten: 0, listens: 0, listensAllowed: 0 };
  const refused = (rule: string, request: string) => findings.push({ rule, request, excerpt: 'accepted' });

  const anonymous = await connect({ servers: natsUrl, reconnect: false, timeout: 5_000 }).catch(() => undefined);
  if (anonymous !== undefined) {
    counts.anonymous += 1;
    refused('a client without credentials is refused', `CONNECT ${natsUrl}`);
    await anonymous.close();
  }

  for (const user of Object.keys(NATS_GRANTS)) {
    const nc = await connect({ servers: natsUrl, user, pass: testNatsPassword(), inboxPrefix: inboxPrefix(user), reconnect: false });
    try {
      const jsm = await jetstreamManager(nc);
      const js = jetstream(nc);
      counts.controls += 1;
      const own = Object.keys(NATS_GRANTS[user]!.streams)[0]!;
      if (!(await succeeds(jsm.streams.info(own)))) {
        counts.controlsFailed += 1;
        findings.push({ rule: 'a user reads its own stream', request: `${user}: STREAM.INFO ${own}`, excerpt: 'refused' });
      }

      for (const [publisher, entity] of Object.entries(FORGEABLE)) {
        if (publisher === user) continue;
        const subject = `rm.${publisher}.${tenant}.${entity}.updated`;
        counts.events += 1;
        if (await succeeds(js.publish(subject, forgedEvent(tenant, publisher, entity), { timeout: REFUSAL_TIMEOUT_MS }))) {
          counts.eventsAccepted += 1;
          refused("a user may not publish another's events", `${user}: PUB ${subject}`);
        }
      }

      for (const publisher of Object.keys(FORGEABLE)) {
        const stream = serviceStream(publisher).name;
        // a service updates its own stream (at every start); nobody deletes one
        if (NATS_GRANTS[user]!.streams[stream] !== 'owns') {
          counts.streams += 1;
          if (await succeeds(jsm.streams.update(stream, { description: `changed by ${user}` }))) {
            counts.streamsChanged += 1;
            refused("a user may not change another's stream", `${user}: STREAM.UPDATE ${stream}`);
          }
        }
        counts.streams += 1;
        if (await succeeds(jsm.streams.delete(stream))) {
          counts.streamsChanged += 1;
          refused('no user may delete a stream', `${user}: STREAM.DELETE ${stream}`);
        }
      }

      if (user !== 'gateway') {
        counts.blocks += 1;
        if (await succeeds(js.publish(`$KV.${BLOCK_BUCKET}.10_9_8_7`, JSON.stringify({ until: Date.now() + 60_000 }), { timeout: REFUSAL_TIMEOUT_MS }))) {
          counts.blocksWritten += 1;
          refused("only the gateway writes its blocked addresses", `${user}: PUB $KV.${BLOCK_BUCKET}.10_9_8_7`);
        }
      }

      for (const subject of ['rm.>', '_INBOX.>']) {
        counts.listens += 1;
        if (await listens(nc, subject)) {
          counts.listensAllowed += 1;
          refused("a user may not listen to others' events or answers", `${user}: SUB ${subject}`);
        }
      }
    } finally {
      await nc.close();
    }
  }

  const stored = await forgedStored(natsUrl, tenant);
  if (stored > 0) findings.push({ rule: 'no forged event is stored', request: `rm.*.${tenant}.>`, excerpt: `${stored} stored` });

  const rows: Rows = [
    ['anonymous connections accepted', counts.anonymous],
    ['users, each reading its own stream first (control)', `${counts.controls} (${counts.controlsFailed} failed)`],
    ["another service's events published", counts.events],
    ['of them accepted', counts.eventsAccepted],
    ['of them stored', stored],
    ["changes and deletions of streams tried", counts.streams],
    ['of them done', counts.streamsChanged],
    ["writes to the gateway's blocked addresses by other users", counts.blocks],
    ['of them done', counts.blocksWritten],
    ["subscriptions to every event or every user's answers", counts.listens],
    ['of them allowed', counts.listensAllowed],
  ];
  return {
    name: 'forged-events',
    did:
      'A client without credentials connects to NATS; then each NATS user of the system (each service, the planning platform), ' +
      "after reading its own stream as a control, publishes an event in every other publisher's name for a fresh tenant, " +
      "changes and deletes every publisher's stream, writes the gateway's blocked-address bucket and subscribes to every event " +
      "and every inbox. The test admin then counts what the stream holds for that tenant.",
    rows,
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

function forgedEvent(tenant: string, publisher: string, entity: string): string {
  const id = randomUUID();
  return JSON.stringify({ id, type: `${publisher}.${entity}.updated`, tenant, entity_id: 'forged', version: 1_000_000, occurred_at: new Date().toISOString(), data: {} });
}

async function succeeds(operation: Promise<unknown>): Promise<boolean> {
  try {
    await operation;
    return true;
  } catch {
    return false;
  }
}

/** Whether the server lets the subscription stand: it answers a refused one with a permissions violation. */
async function listens(nc: NatsConnection, subject: string): Promise<boolean> {
  const subscription = nc.subscribe(subject);
  const closed = (async () => {
    for await (const _message of subscription) return true;
    return true;
  })().catch(() => false);
  // a round trip: a violation arrives before the server's answer to a ping
  await nc.flush();
  const outcome = await Promise.race([closed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 500))]);
  subscription.unsubscribe();
  return outcome !== false;
}

/** Messages of the tenant in every publisher's stream, read as the test admin. */
async function forgedStored(natsUrl: string, tenant: string): Promise<number> {
  const admin = await connect({ servers: natsUrl, user: TEST_NATS_ADMIN, pass: testNatsPassword() });
  try {
    const jsm: JetStreamManager = await jetstreamManager(admin);
    let stored = 0;
    for (const publisher of Object.keys(FORGEABLE)) {
      const info = await jsm.streams.info(serviceStream(publisher).name, { subjects_filter: `rm.${publisher}.${tenant}.>` }).catch(() => undefined);
      stored += Object.values(info?.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
    }
    return stored;
  } finally {
    await admin.close();
  }
}
