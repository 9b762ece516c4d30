import { isIP } from 'node:net';

/** How one environment variable is read. `required` without a default stops the start when unset. */
export type VariableSpec =
  | { type: 'string'; required?: boolean; default?: string; pattern?: RegExp; hint?: string }
  | { type: 'secret'; required?: boolean; default?: string; minLength?: number }
  | { type: 'url'; required?: boolean; default?: string; protocols: readonly string[] }
  | { type: 'int'; required?: boolean; default?: number; min?: number; max?: number }
  | { type: 'port'; required?: boolean; default?: number }
  | { type: 'enum'; required?: boolean; default?: string; values: readonly string[] }
  | { type: 'duration-ms'; required?: boolean; default?: number; min?: number; max?: number }
  /** Comma-separated IP addresses and CIDR ranges, like `10.0.0.0/8, 192.168.1.7`. */
  | { type: 'address-list'; required?: boolean; default?: readonly string[] };

/** Variables by their environment name. */
export type ConfigSpec = Record<string, VariableSpec>;

type ValueOf<V> = V extends { type: 'enum'; values: readonly (infer E)[] }
  ? E
  : V extends { type: 'int' | 'port' | 'duration-ms' }
    ? number
    : V extends { type: 'address-list' }
      ? readonly string[]
      : string;
type AlwaysSet<V> = V extends { required: true } ? true : V extends { default: unknown } ? true : false;

/** The typed result: variables that are required or have a default are never undefined. */
export type Config<S extends ConfigSpec> = {
  readonly [K in keyof S]: AlwaysSet<S[K]> extends true ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
};

/** Every missing or bad variable, each with its rule. */
export class ConfigError extends Error {
  readonly code = 'RM_CONFIG_INVALID';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n- ${problems.join('\n- ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Value = string | number | readonly string[];
type Parsed = { value: Value } | { problem: string };

/**
 * Reads, checks and freezes the configuration in one go; throws a ConfigError naming every bad
 * variable, not only the first. An empty variable counts as unset.
 */
export function readConfig<const S extends ConfigSpec>(spec: S, env: Record<string, string | undefined> = process.env): Config<S> {
  const values: Record<string, Value | undefined> = {};
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(spec)) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') {
      if (variable.default !== undefined) values[name] = variable.default;
      else if (variable.required === true) problems.push(`${name} is required`);
      continue;
    }
    const parsed = parseVariable(name, variable, raw.trim());
    if ('problem' in parsed) problems.push(parsed.problem);
    else if (variable.type === 'secret' && isDevelopmentOnly(parsed.value, env)) {
      problems.push(`${name} holds a development-only value (${DEVELOPMENT_ONLY_PREFIX}…): set a secret of your own, or ${ALLOW_DEVELOPMENT_SECRETS}=true on a development stack`);
    } else values[name] = parsed.value;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(values) as Config<S>;
}

/** The defaults of the development stacks (npm start, docker-compose.yml) start with it, and say so. */
const DEVELOPMENT_ONLY_PREFIX = 'dev-only-';
/** Set to `true` by the development stacks only: their known secrets are then accepted. */
const ALLOW_DEVELOPMENT_SECRETS = 'ALLOW_DEV_ONLY_SECRETS';

function isDevelopmentOnly(value: Value, env: Record<string, string | undefined>): boolean {
  return typeof value === 'string' && value.startsWith(DEVELOPMENT_ONLY_PREFIX) && env[ALLOW_DEVELOPMENT_SECRETS] !== 'true';
}

function parseVariable(name: string, variable: VariableSpec, raw: string): Parsed {
  switch (variable.type) {
    case 'string':
      return variable.pattern === undefined || variable.pattern.test(raw)
        ? { value: raw }
        : { problem: `${name} must be ${variable.hint ?? `matching ${variable.pattern}`}, got '${raw}'` };
    case 'secret': {
      // A secret is never echoed, not even when it is wrong.
      const minLength = variable.minLength ?? 1;
      return raw.length >= minLength ? { value: raw } : { problem: `${name} must be at least ${minLength} characters long` };
    }
    case 'url':
      // URLs may carry credentials (mongodb://user:pass@…): name the rule, not the value.
      return URL.canParse(raw) && variable.protocols.includes(new URL(raw).protocol)
        ? { value: raw }
        : { problem: `${name} must be a URL with protocol ${variable.protocols.join(' or ')}` };
    case 'enum':
      return variable.values.includes(raw)
        ? { value: raw }
        : { problem: `${name} must be one of ${variable.values.join(', ')}, got '${raw}'` };
    case 'port':
      return parseInteger(name, raw, 1, 65_535, 'an integer');
    case 'int':
      return parseInteger(name, raw, variable.min, variable.max, 'an integer');
    case 'duration-ms':
      return parseInteger(name, raw, variable.min ?? 0, variable.max, 'a whole number of milliseconds');
    case 'address-list':
      return parseAddressList(name, raw);
  }
}

function parseAddressList(name: string, raw: string): Parsed {
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isAddressOrRange(entry));
  if (bad.length === 0) return { value: Object.freeze(entries) };
  return { problem: `${name} must be a comma-separated list of IP addresses or CIDR ranges like 10.0.0.0/8, got ${bad.map((entry) => `'${entry}'`).join(', ')}` };
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefixLength, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return prefixLength === undefined || (/^(0|[1-9]\d*)$/.test(prefixLength) && Number(prefixLength) <= (version === 4 ? 32 : 128));
}

function parseInteger(name: string, raw: string, min: number | undefined, max: number | undefined, kind: string): Parsed {
  const value = Number(raw);
  const inRange = (min === undefined || value >= min) && (max === undefined || value <= max);
  if (/^-?\d+$/.test(raw) && Number.isSafeInteger(value) && inRange) return { value };
  const range =
    min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? ` ≥ ${min}` : max !== undefined ? ` ≤ ${max}` : '';
  return { problem: `${name} must be ${kind}${range}, got '${raw}'` };
}

/**
 * Where NATS is and who connects: the service's user (@rm/nats-access) with its password (development
 * and tests) or nkey seed (production), over TLS checked against NATS_TLS_CA_FILE when set.
 */
export function natsConfigSpec(defaults: { NATS_USER: string }) {
  return {
    NATS_USER: { type: 'string', default: defaults.NATS_USER, pattern: /^[A-Za-z0-9_-]{1,64}$/, hint: 'a user name of 1 to 64 letters, digits, _ or -' },
    NATS_PASSWORD: { type: 'secret' },
    /** An nkey user seed (`SU…`): the server holds only its public key. */
    NATS_NKEY_SEED: { type: 'secret', minLength: 58 },
    NATS_TLS_CA_FILE: { type: 'string' },
  } as const satisfies ConfigSpec;
}

export const NATS_URL_PROTOCOLS = ['nats:', 'tls:', 'ws:', 'wss:'] as const;

/** Per-service defaults of the common variables. */
export interface ServiceConfigDefaults {
  PORT: number;
  MONGO_DB: string;
  /** The NATS user it connects as: the service's name. */
  NATS_USER: string;
  /** The running version (runMain: its package's version). */
  SERVICE_VERSION?: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The variables every service reads; spread it and add the service's own. */
export function serviceConfigSpec(defaults: ServiceConfigDefaults) {
  return {
    HOST: { type: 'string', default: '0.0.0.0' },
    /** The version label of the rm_build_info metric. */
    SERVICE_VERSION: { type: 'string', default: defaults.SERVICE_VERSION ?? 'unknown' },
    PORT: { type: 'port', default: defaults.PORT },
    LOG_LEVEL: { type: 'enum', values: LOG_LEVELS, default: 'info' },
    /**
     * OTLP/HTTP collector (`http://otel-collector:4318`) that traces go to, at <endpoint>/v1/traces; unset,
     * tracing is off. The exporter reads its other OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself.
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: { type: 'url', protocols: ['http:', 'https:'] },
    /** service.name of the traces, instead of the service's own name. */
    OTEL_SERVICE_NAME: { type: 'string' },
    MONGO_URL: { type: 'url', protocols: ['mongodb:', 'mongodb+srv:'], required: true },
    MONGO_DB: { type: 'string', default: defaults.MONGO_DB, pattern: /^[A-Za-z0-9_-]{1,63}$/, hint: 'a database name of 1 to 63 letters, digits, _ or -' },
    /** Attempts to reach MongoDB and NATS at start, CONNECT_RETRY_DELAY_MS apart: a pod may start before them. */
    CONNECT_ATTEMPTS: { type: 'int', min: 1, max: 1_000, default: 30 },
    CONNECT_RETRY_DELAY_MS: { type: 'duration-ms', min: 10, default: 1_000 },
    /** Longest a database call waits for a server and then for its answer: a lost or hung server becomes a 503, never a stuck request or relay. */
    MONGO_OPERATION_TIMEOUT_MS: { type: 'duration-ms', min: 100, default: 10_000 },
    /**
     * Connections to MongoDB, so database calls at once; services sharing a FerretDB keep fewer together
     * than its PostgreSQL connections (connectMongo).
     */
    MONGO_MAX_POOL_SIZE: { type: 'int', min: 1, max: 1_000, default: 8 },
    /** Between passes that finish what a crash left half done and purge tombstones (store.maintain()). */
    MAINTENANCE_INTERVAL_MS: { type: 'duration-ms', min: 1_000, default: 10_000 },
    NATS_URL: { type: 'url', protocols: NATS_URL_PROTOCOLS, required: true },
    ...natsConfigSpec({ NATS_USER: defaults.NATS_USER }),
    /** Copies of each stream the service declares: 3 on a 3-node NATS cluster, so none is lost with a node. */
    NATS_STREAM_REPLICAS: { type: 'int', min: 1, max: 5, default: 1 },
    AUTH_JWKS_URL: { type: 'url', protocols: ['https:', 'http:'], required: true },
    /** The issuer's list of tokens revoked early; unset: /oauth2/revocations at AUTH_JWKS_URL's origin (the gateway). */
    AUTH_REVOCATIONS_URL: { type: 'url', protocols: ['https:', 'http:'] },
    /** How often it is fetched: a revocation reaches the service within this and the gateway's own refresh. */
    AUTH_REVOCATIONS_REFRESH_MS: { type: 'duration-ms', min: 100, default: 15_000 },
    AUTH_ISSUER: { type: 'string', required: true },
    AUTH_AUDIENCE: { type: 'string', required: true },
    CURSOR_SECRET: { type: 'secret', minLength: 32, required: true },
    PUBLIC_BASE_PATH: {
      type: 'string',
      default: '/resource-management/v1',
      pattern: /^(\/[A-Za-z0-9._~-]+)+$/,
      hint: 'a path like /resource-management/v1 (leading slash, no trailing slash)',
    },
    /**
     * The proxies whose X-Forwarded-For, -Proto, -Host and -Prefix are believed (the gateway, or
     * the ingress in front of it): addresses or CIDR ranges of the immediate peer. Empty: nobody.
     */
    TRUST_PROXY: { type: 'address-list', default: [] },
    BODY_LIMIT_BYTES: { type: 'int', min: 1_024, max: 100 * 1_048_576, default: 1_048_576 },
    REQUEST_TIMEOUT_MS: { type: 'duration-ms', min: 1_000, default: 30_000 },
    READINESS_TIMEOUT_MS: { type: 'duration-ms', min: 100, default: 2_000 },
    /** Time to keep serving after SIGTERM while Kubernetes takes the pod out of its endpoints. */
    SHUTDOWN_DELAY_MS: { type: 'duration-ms', default: 0 },
    /** Keep SHUTDOWN_DELAY_MS + SHUTDOWN_GRACE_MS below the pod's terminationGracePeriodSeconds. */
    SHUTDOWN_GRACE_MS: { type: 'duration-ms', min: 1_000, default: 10_000 },
  } as const satisfies ConfigSpec;
}
