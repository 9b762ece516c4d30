const BASE64URL_ALPHABET = /^[A-Za-z0-9_-]*$/;

/**
 * The bytes of `text` if it is canonical base64url (RFC 4648 §5, unpadded), else undefined.
 * Node's decoder skips characters outside the alphabet, stops at `=` and ignores unused low
 * bits, so many texts decode to the same bytes; only the canonical one re-encodes to itself.
 */
export function decodeCanonicalBase64url(text: string): Buffer | undefined {
  if (!BASE64URL_ALPHABET.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
