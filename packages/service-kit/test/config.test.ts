import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig, serviceConfigSpec } from '../src/index.js';

const validEnv = {
  MONGO_URL: 'mongodb://127.0.0.1:27017/',
  NATS_URL: 'nats://127.0.0.1:4222',
  AUTH_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
  AUTH_ISSUER: 'https://issuer.example/',
  AUTH_AUDIENCE: 'resource-management',
  CURSOR_SECRET: 'x'.repeat(32),
};

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('readConfig', () => {
  it('reads the stream replica count and refuses one a NATS cluster cannot have', () => {
    const spec = serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' });
    expect(readConfig(spec, { ...validEnv, NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
    expect(problemsOf(() => readConfig(spec, { ...validEnv, NATS_STREAM_REPLICAS: '7' }))).toEqual([
      expect.stringMatching(/^NATS_STREAM_REPLICAS must be an integer from 1 to 5/),
    ]);
  });

  it('reads TRUST_PROXY as a list of addresses and CIDR ranges, empty when unset', () => {
    const spec = serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' });
    expect(readConfig(spec, validEnv).TRUST_PROXY).toEqual([]);
    expect(readConfig(spec, { ...validEnv, TRUST_PROXY: ' ' }).TRUST_PROXY).toEqual([]);
    const trusted: readonly string[] = readConfig(spec, { ...validEnv, TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1 , fd00::/8' }).TRUST_PROXY;
    expect(trusted).toEqual(['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8']);
    expect(Object.isFrozen(trusted)).toBe(true);
  });

  it.each([
    ['a host name', '10.0.0.1,gateway.local', "'gateway.local'"],
    ['a prefix too long for IPv4', '10.0.0.0/33', "'10.0.0.0/33'"],
    ['a prefix too long for IPv6', 'fd00::/129', "'fd00::/129'"],
    ['an address out of range', '300.1.1.1', "'300.1.1.1'"],
    ['a netmask instead of a prefix', '10.0.0.0/255.0.0.0', "'10.0.0.0/255.0.0.0'"],
    ['a named range', 'loopback', "'loopback'"],
    ['an empty entry and two slashes', '10.0.0.1,,10.0.0.0/8/1', "'', '10.0.0.0/8/1'"],
  ])('refuses TRUST_PROXY with %s, naming each bad entry', (_case, value, named) => {
    const spec = serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' });
    expect(problemsOf(() => readConfig(spec, { ...validEnv, TRUST_PROXY: value }))).toEqual([
      `TRUST_PROXY must be a comma-separated list of IP addresses or CIDR ranges like 10.0.0.0/8, got ${named}`,
    ]);
  });

  it('returns one frozen, typed object with the defaults filled in', () => {
    const config = readConfig(serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' }), validEnv);
    expect(config).toMatchObject({
      HOST: '0.0.0.0',
      PORT: 3001,
      LOG_LEVEL: 'info',
      MONGO_DB: 'employees',
      PUBLIC_BASE_PATH: '/resource-management/v1',
      BODY_LIMIT_BYTES: 1_048_576,
      SHUTDOWN_GRACE_MS: 10_000,
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_STREAM_REPLICAS: 1,
    });
    expect(Object.isFrozen(config)).toBe(true);
    const port: number = config.PORT;
    expect(port).toBe(3001);
  });

  it('names every missing or bad variable with its rule in one error', () => {
    const env = { ...validEnv, NATS_URL: undefined, PORT: 'x', LOG_LEVEL: 'loud', BODY_LIMIT_BYTES: '12.5' };
    const problems = problemsOf(() => readConfig(serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' }), env));
    expect(problems).toEqual([
      "PORT must be an integer from 1 to 65535, got 'x'",
      "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'",
      'NATS_URL is required',
      "BODY_LIMIT_BYTES must be an integer from 1024 to 104857600, got '12.5'",
    ]);
    expect(() => readConfig(serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' }), env)).toThrow(/PORT must be[\s\S]*NATS_URL is required/);
  });

  // Before, a stack deployed with compose's defaults ran on secrets everyone knows.
  it('refuses a development-only secret unless the stack says it is a development one', () => {
    const spec = serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' });
    const env = { ...validEnv, CURSOR_SECRET: 'dev-only-cursor-secret-never-use-in-production', NATS_PASSWORD: 'dev-only-nats-password' };
    expect(problemsOf(() => readConfig(spec, env))).toEqual([
      'NATS_PASSWORD holds a development-only value (dev-only-…): set a secret of your own, or ALLOW_DEV_ONLY_SECRETS=true on a development stack',
      'CURSOR_SECRET holds a development-only value (dev-only-…): set a secret of your own, or ALLOW_DEV_ONLY_SECRETS=true on a development stack',
    ]);
    expect(readConfig(spec, { ...env, ALLOW_DEV_ONLY_SECRETS: 'true' }).CURSOR_SECRET).toBe(env.CURSOR_SECRET);
    expect(problemsOf(() => readConfig(spec, { ...env, ALLOW_DEV_ONLY_SECRETS: 'yes' }))).toHaveLength(2);
  });

  it('never echoes secrets or URLs, which may hold credentials', () => {
    const env = { ...validEnv, CURSOR_SECRET: 'short-secret', MONGO_URL: 'http://user:hunter2@db/' };
    const problems = problemsOf(() => readConfig(serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees', NATS_USER: 'employees' }), env));
    expect(problems).toEqual([
      'MONGO_URL must be a URL with protocol mongodb: or mongodb+srv:',
      'CURSOR_SECRET must be at least 32 characters long',
    ]);
    expect(problems.join(' ')).not.toMatch(/hunter2|short-secret/);
  });

  it('treats an empty variable as unset and checks patterns', () => {
    const spec = {
      NAME: { type: 'string', required: true },
      BASE: { type: 'string', pattern: /^\/\w+$/, hint: 'a path like /api' },
      WAIT_MS: { type: 'duration-ms', min: 10 },
      OPTIONAL: { type: 'int' },
    } as const;
    expect(problemsOf(() => readConfig(spec, { NAME: ' ', BASE: 'api/', WAIT_MS: '5' }))).toEqual([
      'NAME is required',
      "BASE must be a path like /api, got 'api/'",
      "WAIT_MS must be a whole number of milliseconds ≥ 10, got '5'",
    ]);
    const config = readConfig(spec, { NAME: 'svc', WAIT_MS: '25' });
    expect(config).toEqual({ NAME: 'svc', WAIT_MS: 25 });
    const optional: number | undefined = config.OPTIONAL;
    expect(optional).toBeUndefined();
  });
});
