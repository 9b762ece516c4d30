import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '@rm/service-kit';
import { gatewayConfigSpec } from '../src/config.js';

const required = { SIGNING_KEY_ENCRYPTION_KEY: 'k'.repeat(48) };

describe('the gateway\'s settings', () => {
  // a token cannot be taken back before it expires: a day-long one outlived a disabled client by a day
  it('refuses a token lifetime over an hour, naming the variable and the limit', () => {
    expect(() => readConfig(gatewayConfigSpec, { ...required, TOKEN_LIFETIME_SECONDS: '7200' })).toThrow(ConfigError);
    expect(() => readConfig(gatewayConfigSpec, { ...required, TOKEN_LIFETIME_SECONDS: '7200' })).toThrow(/TOKEN_LIFETIME_SECONDS.*3600/);
    expect(readConfig(gatewayConfigSpec, { ...required, TOKEN_LIFETIME_SECONDS: '3600' }).TOKEN_LIFETIME_SECONDS).toBe(3600);
  });

  // the typed client (packages/client) opens a feed again after 45 s of silence: a slower heartbeat would reconnect quiet feeds for nothing
  it('refuses a change-feed heartbeat over 30 s, naming the variable and the limit', () => {
    expect(() => readConfig(gatewayConfigSpec, { ...required, CHANGE_FEED_HEARTBEAT_MS: '45000' })).toThrow(ConfigError);
    expect(() => readConfig(gatewayConfigSpec, { ...required, CHANGE_FEED_HEARTBEAT_MS: '45000' })).toThrow(/CHANGE_FEED_HEARTBEAT_MS.*30000/);
    expect(readConfig(gatewayConfigSpec, { ...required, CHANGE_FEED_HEARTBEAT_MS: '30000' }).CHANGE_FEED_HEARTBEAT_MS).toBe(30_000);
  });
});
