import { describe, expect, it } from 'vitest';
import { addressKey } from '../src/token-protection/address-key.js';

describe('addressKey', () => {
  it('keeps an IPv4 address as it is, and reads an IPv4-mapped IPv6 address as that IPv4 address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is spelled', () => {
    const key = '2001:0db8:0000:0042::/64';
    expect(addressKey('2001:db8:0:42::1')).toBe(key);
    expect(addressKey('2001:db8:0:42:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:DB8:0000:0042:0:0:0:9')).toBe(key);
    expect(addressKey('2001:db8::42:0:0:1')).toBe('2001:0db8:0000:0000::/64');
    expect(addressKey('2001:db8:0:43::1')).not.toBe(key);
  });

  it('resolves a zone and an embedded IPv4 tail', () => {
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0000:0000:0000::/64');
    expect(addressKey('64:ff9b::192.0.2.33')).toBe('0064:ff9b:0000:0000::/64');
    expect(addressKey('::1')).toBe('0000:0000:0000:0000::/64');
  });
});
