import type { ConfigSpec } from '@rm/service-kit';
import { DEFAULT_SECRET_HASH_COST } from './domain/client-secret.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The gateway's own variables, beside the common ones (service-kit's serviceConfigSpec). */
export const gatewayConfigSpec = {
  /** Not read: the gateway verifies tokens with its own keys, from its database. */
  AUTH_JWKS_URL: { type: 'url', protocols: ['https:', 'http:'] },
  /** Not read: the gateway pages nothing. */
  CURSOR_SECRET: { type: 'secret', minLength: 32 },

  /**
   * Lifetime of an access token (`expires_in`). At most an hour: a token cannot be taken back before it
   * expires, so a leaked one, or one of a client since disabled, is good until then.
   */
  TOKEN_LIFETIME_SECONDS: { type: 'int', min: 2, max: 3600, default: 300 },
  /** Encrypts the private signing keys in the database (AES-256-GCM under a key derived from it); the same on every replica. */
  SIGNING_KEY_ENCRYPTION_KEY: { type: 'secret', minLength: 32, required: true },
  /**
   * While SIGNING_KEY_ENCRYPTION_KEY is replaced: the one before, under which keys still sealed are read
   * and sealed again under the new one. Remove it once every replica runs with the new key.
   */
  SIGNING_KEY_PREVIOUS_ENCRYPTION_KEY: { type: 'secret', minLength: 32 },
  /** A new signing key takes over this long after the previous one did. */
  SIGNING_KEY_ROTATION_MS: { type: 'duration-ms', min: 1_000, default: 24 * HOUR },
  /** A new key is in the key set this long before it signs, so that every verifier knows it first. */
  SIGNING_KEY_PUBLISH_LEAD_MS: { type: 'duration-ms', min: 100, default: 10 * MINUTE },
  /** A retired key stays published this long beyond its last token's expiry: verifiers' clock tolerance and replicas' clock skew. */
  SIGNING_KEY_RETENTION_MARGIN_MS: { type: 'duration-ms', default: 60_000 },
  /** How often a replica reloads the keys (and rotates when due); keep it well below the lead. */
  SIGNING_KEY_REFRESH_MS: { type: 'duration-ms', min: 50, default: 30_000 },

  /** scrypt cost (log2 N) of client secrets: of new hashes, of the decoy an unknown client is checked against, and what older hashes are brought to at their next login. The clients command reads it too. */
  CLIENT_SECRET_HASH_COST: { type: 'int', min: 10, max: 18, default: DEFAULT_SECRET_HASH_COST },

  /**
   * Client-secret hashes (scrypt, 32 MiB each) one replica runs at once, and how many more may wait;
   * beyond them the token endpoint answers 503 with Retry-After. One at a time leaves the other core
   * of the pod's two to the API; a queue rather than quick 503s, which a client retrying at once turns
   * into a busy loop (bench/README.md, gateway).
   */
  TOKEN_HASH_CONCURRENCY: { type: 'int', min: 1, max: 64, default: 1 },
  TOKEN_HASH_QUEUE: { type: 'int', min: 0, max: 10_000, default: 64 },
  /** Token requests accepted per source IP in any one second, across every replica (spec: 50); the rest get 429. */
  TOKEN_RATE_LIMIT: { type: 'int', min: 1, max: 100_000, default: 50 },
  /**
   * Token requests accepted per client id in any one second, across every replica and addresses: one
   * client's secret is hashed at most this often (a token lasts up to an hour; one a second is plenty).
   */
  TOKEN_RATE_LIMIT_PER_CLIENT: { type: 'int', min: 1, max: 100_000, default: 5 },
  /** Failed logins from one IP within LOGIN_FAILURE_WINDOW_MS that block it. */
  LOGIN_FAILURE_LIMIT: { type: 'int', min: 2, max: 10_000, default: 10 },
  LOGIN_FAILURE_WINDOW_MS: { type: 'duration-ms', min: 1_000, default: MINUTE },
  /** How long a blocked IP's connections are closed. */
  LOGIN_BLOCK_MS: { type: 'duration-ms', min: 1_000, default: 15 * MINUTE },

  /**
   * Each tenant's limits unless it has its own (`npm run clients -- set-limits`). They go into every
   * token the gateway issues (claim `limits`), so a change reaches a tenant with its next token.
   * API requests per second, across every replica (429 beyond):
   */
  TENANT_REQUEST_RATE: { type: 'int', min: 1, max: 1_000_000, default: 200 },
  /** Records stored at most, enforced by their owners (409 at the quota): */
  TENANT_EMPLOYEE_QUOTA: { type: 'int', min: 1, max: 100_000_000, default: 100_000 },
  TENANT_TRANSPORT_RESOURCE_QUOTA: { type: 'int', min: 1, max: 100_000_000, default: 100_000 },
  TENANT_AVAILABILITY_QUOTA: { type: 'int', min: 1, max: 100_000_000, default: 2_000_000 },

  /**
   * Operators' bearer token for the health overview at /admin/health (at least 32 characters); the
   * overview is not served without it.
   */
  ADMIN_TOKEN: { type: 'secret', minLength: 32 },

  /** Where each owning service answers (DESIGN §2); the paths of an unset one are not routed. */
  UPSTREAM_EMPLOYEES_URL: { type: 'url', protocols: ['http:', 'https:'] },
  UPSTREAM_TRANSPORT_RESOURCES_URL: { type: 'url', protocols: ['http:', 'https:'] },
  UPSTREAM_HOME_BASES_URL: { type: 'url', protocols: ['http:', 'https:'] },
  UPSTREAM_DEPLOYMENTS_URL: { type: 'url', protocols: ['http:', 'https:'] },
  UPSTREAM_MATCHING_URL: { type: 'url', protocols: ['http:', 'https:'] },
  UPSTREAM_WEBHOOKS_URL: { type: 'url', protocols: ['http:', 'https:'] },
  /** Longest wait for an upstream's answer, then for each part of its body: then 504. */
  UPSTREAM_TIMEOUT_MS: { type: 'duration-ms', min: 100, default: 30_000 },
  /** Pooled keep-alive connections to each upstream. */
  UPSTREAM_CONNECTIONS: { type: 'int', min: 1, max: 10_000, default: 128 },

  /**
   * The change feed's heartbeat: a comment and the position so far, so that proxies keep the stream open.
   * At most 30 s: the typed client (packages/client) takes 45 s of silence for a lost connection.
   */
  CHANGE_FEED_HEARTBEAT_MS: { type: 'duration-ms', min: 100, max: 30_000, default: 15_000 },
  /** Change feeds one tenant may keep open on one replica; the next answers 429. */
  CHANGE_FEEDS_PER_TENANT: { type: 'int', min: 1, max: 10_000, default: 100 },

  /** The largest body of `POST /import`, kept in a temporary file while its lines apply. */
  IMPORT_BODY_LIMIT_BYTES: { type: 'int', min: 1_024, max: 4 * 1024 ** 3, default: 256 * 1024 ** 2 },
  /** Lines of one import sent to their owners at once. */
  IMPORT_CONCURRENCY: { type: 'int', min: 1, max: 256, default: 16 },
  /**
   * Bytes of lines one import holds before their owners have answered them (sent, or waiting for their
   * resource's earlier lines); the body is read on once they are answered. One line larger still goes alone.
   */
  IMPORT_WINDOW_BYTES: { type: 'int', min: 1_024, max: 1024 ** 3, default: 16 * 1024 ** 2 },
} as const satisfies ConfigSpec;
