/**
 * Longer than any credentials we accept: a token we issue is under 1 KB, and so are Basic credentials of
 * a client id (at most 128 characters) and its secret. A longer header is refused before it is read.
 */
export const MAX_AUTHORIZATION_LENGTH = 4096;

/**
 * The credentials of an `Authorization` header in `scheme` (case-insensitive, then one or more spaces,
 * RFC 9110 §11.6.2), trailing spaces dropped; undefined for another scheme or no credentials. One pass
 * over the header, no pattern: a pattern whose cost grows faster than the header's length let one
 * request of 16 KB stall the event loop (issue 26).
 */
export function credentialsOf(header: string, scheme: string): string | undefined {
  if (header.length <= scheme.length || header.slice(0, scheme.length).toLowerCase() !== scheme.toLowerCase()) return undefined;
  let start = scheme.length;
  if (header.charCodeAt(start) !== SPACE) return undefined;
  while (header.charCodeAt(start) === SPACE) start += 1;
  let end = header.length;
  while (end > start && header.charCodeAt(end - 1) === SPACE) end -= 1;
  return start === end ? undefined : header.slice(start, end);
}

const SPACE = 0x20;
