import { describe, expect, it } from 'vitest';
import { isPublicAddress, publicOnlyLookup, urlRefusal } from '../src/delivery/target-policy.js';
import { createSender } from '../src/delivery/sender.js';

describe('where deliveries may go', () => {
  it('takes public unicast addresses only', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses URLs that are not https, carry credentials or name a private host, unless any target is allowed', () => {
    expect(urlRefusal('https://hooks.example.com/rm', 'public')).toBeUndefined();
    expect(urlRefusal('http://hooks.example.com/rm', 'public')).toBe('must be an https URL');
    expect(urlRefusal('https://user:pw@hooks.example.com/rm', 'public')).toBe('must not carry credentials');
    expect(urlRefusal('https://127.0.0.1/rm', 'public')).toBe('must not point to a private, loopback or link-local address');
    expect(urlRefusal('https://[::1]:8443/rm', 'public')).toBe('must not point to a private, loopback or link-local address');
    expect(urlRefusal('https://169.254.169.254/latest/meta-data', 'public')).toBe('must not point to a private, loopback or link-local address');
    expect(urlRefusal('https://localhost/rm', 'public')).toBe('must name a public host');
    expect(urlRefusal('https://intranet/rm', 'public')).toBe('must name a public host');
    expect(urlRefusal('not a url', 'public')).toBe('must be an absolute URL');
    expect(urlRefusal('http://127.0.0.1:8080/rm', 'any')).toBeUndefined();
    expect(urlRefusal('file:///etc/passwd', 'any')).toBe('must be an http or https URL');
  });

  it('refuses to connect to a name that resolves to a private address, as the connection looks it up', async () => {
    const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicOnlyLookup('localhost', { all: true }, (error) => resolve(error)));
    expect(refused?.code).toBe('ERR_REFUSED_TARGET');
    expect(refused?.message).toBe('localhost resolves to an address that is not public');

    // the sender's own check, before any connection: the URL names a loopback address
    const sender = createSender({ policy: 'public', timeoutMs: 1_000, maxResponseBytes: 1024, connectionsPerTenant: 4, maxPools: 10 });
    try {
      const result = await sender.send({ tenant: 't', url: 'https://127.0.0.1:9/hook', secret: 'whsec_AAAA', webhookId: 'msg_1', body: '{}' });
      expect(result).toMatchObject({ delivered: false, error: 'the URL must not point to a private, loopback or link-local address' });
    } finally {
      await sender.close();
    }
  });
});
