/**
 * What each NATS user of the system may do, in our own terms; permissions.ts turns a grant into the
 * subjects nats-server allows. Each service connects as the user of its name (NATS_USER), and the
 * planning platform as `planning`.
 */

/**
 * - `owns`: creates and updates the stream, reads it and runs consumers on it;
 * - `consumes`: creates the stream as its owner would when it is missing (start order does not matter),
 *   and runs consumers on it; never changes it;
 * - `declares`: only creates it when missing (to source it into a stream of its own, or to publish to it);
 * - `reads`: runs consumers on it once it exists, and never creates or changes it.
 */
export type StreamAccess = 'owns' | 'consumes' | 'declares' | 'reads';

export interface NatsGrant {
  /** Subjects it publishes on (a JetStream stream stores what matches its subjects). */
  publishes: readonly string[];
  /** Core NATS subjects it subscribes to, outside JetStream (nothing is kept for it). */
  listens?: readonly string[];
  streams: Readonly<Record<string, StreamAccess>>;
  /** Key-value buckets it owns (each is the stream `KV_<bucket>` over `$KV.<bucket>.>`). */
  buckets: readonly string[];
}

/** Stream that holds every event one service publishes: `RM_<SERVICE>` over `rm.<service>.>`. */
export function serviceStream(service: string): { name: string; subjects: string[] } {
  return { name: `RM_${service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`, subjects: [`rm.${service}.>`] };
}

/** The one stream of the events a consumer gave up on; every service declares it and records there. */
export const DEAD_LETTER_STREAM = { name: 'RM_DEAD_LETTERS', subjects: ['rm.dead-letter.>'] };

/**
 * A service publishes its own events on its own stream, as the runtime declares it, and records what its
 * consumers give up on.
 */
function service(name: string, more: Partial<NatsGrant> = {}): NatsGrant {
  const own = serviceStream(name);
  return {
    publishes: [...own.subjects, ...DEAD_LETTER_STREAM.subjects, ...(more.publishes ?? [])],
    streams: { [own.name]: 'owns', [DEAD_LETTER_STREAM.name]: 'declares', ...more.streams },
    buckets: more.buckets ?? [],
    ...(more.listens === undefined ? {} : { listens: more.listens }),
  };
}

const EMPLOYEES = serviceStream('employees').name;
const TRANSPORT_RESOURCES = serviceStream('transport-resources').name;
const HOME_BASES = serviceStream('home-bases').name;
const DEPLOYMENTS = serviceStream('deployments').name;
const MATCHING = serviceStream('matching').name;
const PLANNING = serviceStream('planning');

/** Every NATS user of the system by name. A consumer or stream added to a service needs its line here. */
export const NATS_GRANTS: Readonly<Record<string, NatsGrant>> = {
  employees: service('employees'),
  'transport-resources': service('transport-resources'),
  // its reference index follows the writes that name home bases
  'home-bases': service('home-bases', {
    streams: { [EMPLOYEES]: 'consumes', [TRANSPORT_RESOURCES]: 'consumes', [DEPLOYMENTS]: 'consumes' },
  }),
  // which employees and trucks exist, and the planning platform's releases
  deployments: service('deployments', {
    streams: { [EMPLOYEES]: 'consumes', [TRANSPORT_RESOURCES]: 'consumes', [PLANNING.name]: 'consumes' },
  }),
  // its inputs stream (owned) sources the publishers' streams, which it declares so that it may start first
  matching: service('matching', {
    streams: {
      RM_MATCHING_INPUTS: 'owns',
      [EMPLOYEES]: 'declares',
      [TRANSPORT_RESOURCES]: 'declares',
      [HOME_BASES]: 'declares',
      [DEPLOYMENTS]: 'declares',
    },
  }),
  // the token endpoint's shared counters and blocked addresses; the replicas' tenant request counts; the
  // change feed, which reads the events of every resource the API exposes
  gateway: service('gateway', {
    publishes: ['rm-gateway-guard.>'],
    listens: ['rm-gateway-guard.tenant-requests'],
    streams: {
      RM_GATEWAY_TOKEN_RATE: 'owns',
      RM_GATEWAY_CLIENT_TOKEN_RATE: 'owns',
      RM_GATEWAY_LOGIN_FAILURES: 'owns',
      [EMPLOYEES]: 'reads',
      [TRANSPORT_RESOURCES]: 'reads',
      [HOME_BASES]: 'reads',
      [DEPLOYMENTS]: 'reads',
      [MATCHING]: 'reads',
    },
    buckets: ['rm_gateway_blocked_ips'],
  }),
  // the deliveries of every event the API exposes to the tenants' webhook subscriptions
  webhooks: service('webhooks', {
    streams: { [EMPLOYEES]: 'consumes', [TRANSPORT_RESOURCES]: 'consumes', [HOME_BASES]: 'consumes', [DEPLOYMENTS]: 'consumes', [MATCHING]: 'consumes' },
  }),
  // the planning platform: its releases and unreleases only (`npm run planning` connects as it)
  planning: { publishes: PLANNING.subjects, streams: { [PLANNING.name]: 'declares' }, buckets: [] },
};
