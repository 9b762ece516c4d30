import { isIPv6 } from 'node:net';

/**
 * The unit the rate limit and the block count per: an IPv4 address (IPv4-mapped IPv6 included), or
 * an IPv6 /64, which one subscriber usually holds whole: counting single IPv6 addresses would let
 * one client spread its attempts over 2^64 of them.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)?.[1];
  if (mapped !== undefined) return mapped;
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, zone and `::` resolved, an embedded IPv4 tail as two groups. */
function expandIPv6(ip: string): string[] {
  const address = ip.split('%')[0] ?? ip;
  const groupsOf = (part: string): string[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [group.toLowerCase().padStart(4, '0')];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [((a << 8) | b).toString(16).padStart(4, '0'), ((c << 8) | d).toString(16).padStart(4, '0')];
        });
  const [head = '', tail] = address.split('::');
  const before = groupsOf(head);
  const after = tail === undefined ? [] : groupsOf(tail);
  return [...before, ...Array.from({ length: 8 - before.length - after.length }, () => '0000'), ...after];
}
