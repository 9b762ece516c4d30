import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where deliveries may go. `public`: https only, and only to addresses on the public internet, checked
 * on the addresses the host resolves to when connecting (so a name that resolves elsewhere later is
 * still refused); `any`: a development stack, whose receivers run on the same machine.
 */
export type TargetPolicy = 'public' | 'any';

export class RefusedTarget extends Error {}

/** A public unicast address: not private, loopback, link-local, unique-local, multicast, reserved, and not one mapped onto those. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** Why the URL may not receive deliveries under the policy, or undefined; its host's addresses are checked when connecting. */
export function urlRefusal(url: string, policy: TargetPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials';
  if (policy === 'any') return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? undefined : 'must be an http or https URL';
  if (parsed.protocol !== 'https:') return 'must be an https URL';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isPublicAddress(host)) return 'must not point to a private, loopback or link-local address';
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return 'must name a public host';
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `net.connect`'s `lookup` for the public policy: resolves as usual and refuses the connection when any
 * address is not public, so that the check and the connection use the same answer.
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, []);
    const refused = addresses.find(({ address }) => !isPublicAddress(address));
    if (refused !== undefined) {
      // which address is not told: the attempt log is the tenant's, and the network behind it is not
      return callback(Object.assign(new RefusedTarget(`${hostname} resolves to an address that is not public`), { code: 'ERR_REFUSED_TARGET' }), []);
    }
    if (options.all === true) return callback(null, addresses);
    const [first] = addresses;
    if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
