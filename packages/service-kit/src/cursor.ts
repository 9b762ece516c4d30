import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeCanonicalBase64url } from './base64url.js';
import { ValidationProblem } from './errors.js';

export type CursorPayload = Record<string, unknown>;

export interface CursorCodec {
  encode(payload: CursorPayload): string;
  /** The payload of a cursor we made; a 400 on field `cursor` for anything else. */
  decode(cursor: string): CursorPayload;
}

/**
 * Opaque, tamper-checked cursors: base64url(JSON) '.' base64url(HMAC-SHA256). The payload is not
 * secret, only unforgeable, so a caller cannot steer a query with a hand-made cursor. A cursor is
 * accepted only spelled exactly as we issued it: each part canonical base64url.
 */
export function createCursorCodec(secret: string): CursorCodec {
  const sign = (data: string) => createHmac('sha256', secret).update(data).digest();

  return {
    encode(payload) {
      const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${data}.${sign(data).toString('base64url')}`;
    },
    decode(cursor) {
      const [data, signature, ...rest] = cursor.split('.');
      if (data === undefined || signature === undefined || rest.length > 0) return invalidCursor();
      const json = decodeCanonicalBase64url(data);
      const given = decodeCanonicalBase64url(signature);
      if (json === undefined || given === undefined) return invalidCursor();
      const expected = sign(data);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalidCursor();
      let payload: unknown;
      try {
        payload = JSON.parse(json.toString('utf8'));
      } catch {
        return invalidCursor();
      }
      return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as CursorPayload) : invalidCursor();
    },
  };
}

export function invalidCursor(): never {
  throw new ValidationProblem([{ field: 'cursor', message: 'is not a valid cursor' }]);
}
