import type { NatsGrant, StreamAccess } from './grants.js';

/** nats-server's permissions of one user: what it may publish and subscribe to; all else is refused. */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
}

/**
 * A user's replies come to inboxes of its own (the client's `inboxPrefix`), so that no user can
 * subscribe to another's answers: JetStream's replies carry the messages it asked for.
 */
export function inboxPrefix(user: string): string {
  return `_INBOX_${user}`;
}

/** The JetStream API subjects behind a grant (https://docs.nats.io/nats-concepts/jetstream/js_walkthrough). */
export function natsPermissions(user: string, grant: NatsGrant): NatsPermissions {
  const streams: [string, StreamAccess][] = [
    ...Object.entries(grant.streams),
    ...grant.buckets.map((bucket): [string, StreamAccess] => [bucketStream(bucket), 'owns']),
  ];
  return {
    publish: {
      allow: [
        // the account's JetStream limits, asked for by every JetStream manager and readiness check
        '$JS.API.INFO',
        ...grant.publishes,
        ...streams.flatMap(([stream, access]) => streamSubjects(stream, access)),
        ...grant.buckets.flatMap(bucketSubjects),
      ],
    },
    subscribe: { allow: [`${inboxPrefix(user)}.>`, ...(grant.listens ?? [])] },
  };
}

function streamSubjects(stream: string, access: StreamAccess): string[] {
  const declare = [`$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.INFO.${stream}`];
  switch (access) {
    case 'reads':
      return [`$JS.API.STREAM.INFO.${stream}`, ...consumerSubjects(stream)];
    case 'declares':
      return declare;
    case 'consumes':
      return [...declare, ...consumerSubjects(stream)];
    case 'owns':
      return [...declare, `$JS.API.STREAM.UPDATE.${stream}`, ...consumerSubjects(stream)];
  }
}

/**
 * Creating, reading and fetching from consumers of the stream, and acknowledging what they deliver.
 * NATS matches whole tokens only, and a durable's name carries its database (`home-bases-references-
 * employees-<db>`), so the grant is per stream, not per durable: a user can reach every consumer of a
 * stream it may read, never a consumer of another stream. Deleting consumers is nobody's.
 */
function consumerSubjects(stream: string): string[] {
  return [
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.ACK.${stream}.>`,
  ];
}

function bucketStream(bucket: string): string {
  return `KV_${bucket}`;
}

/** Its keys, reading one, and the watcher's ordered consumer, which the client deletes and recreates as it goes. */
function bucketSubjects(bucket: string): string[] {
  const stream = bucketStream(bucket);
  return [
    `$KV.${bucket}.>`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.CONSUMER.DELETE.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}
