import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '@rm/service-kit';
import { gatewayConfigSpec } from '../src/config.js';

describe('the gateway\'s settings', () => {
  // a token cannot be taken back before it expires: a day-long one outlived a disabled client by a day
  it('refuses a token lifetime over an hour, naming the variable and the limit', () => {
    const required = { SIGNING_KEY_ENCRYPTION_KEY: 'k'.repeat(48) };
    expect(() => readConfig(gatewayConfigSpec, { ...required, TOKEN_LIFETIME_SECONDS: '7200' })).toThrow(ConfigError);
    expect(() => readConfig(gatewayConfigSpec, { ...required, TOKEN_LIFETIME_SECONDS: '7200' })).toThrow(/TOKEN_LIFETIME_SECONDS.*3600/);
    expect(readConfig(gatewayConfigSpec, { ...required, TOKEN_LIFETIME_SECONDS: '3600' }).TOKEN_LIFETIME_SECONDS).toBe(3600);
  });
});
