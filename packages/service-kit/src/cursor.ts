import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationProblem } from './errors.js';

export type CursorPayload = Record<string, unknown>;

export interface CursorCodec {
  encode(payload: CursorPayload): string;
  /** The payload of a cursor we made; a 400 on field `cursor` for anything else. */
  decode(cursor: string): CursorPayload;
}

/**
 * Opaque, tamper-checked cursors: base64url(JSON) '.' base64url(HMAC-SHA256). The payload is not
 * secret, only unforgeable, so a caller cannot steer a query with a hand-made cursor.
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
      const expected = sign(data);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalidCursor();
      let payload: unknown;
      try {
        payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
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
