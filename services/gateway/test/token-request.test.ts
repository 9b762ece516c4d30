import { describe, expect, it } from 'vitest';
import { readTokenRequest, type RawTokenRequest, type TokenRequest } from '../src/domain/token-request.js';

const FORM = 'application/x-www-form-urlencoded';
const GRANT = 'grant_type=client_credentials';

/** RFC 6749 §2.3.1: id and secret are each form-urlencoded (Appendix B), then joined by ':' and base64-encoded. */
function formEncode(text: string): string {
  return encodeURIComponent(text).replaceAll('%20', '+');
}

function basicHeader(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(secret)}`, 'utf8').toString('base64')}`;
}

/** A Basic header over raw text, without any form encoding: for the cases a client gets wrong. */
function rawBasic(userPass: string | Buffer): string {
  return `Basic ${Buffer.from(userPass).toString('base64')}`;
}

function read(request: Partial<RawTokenRequest>): TokenRequest {
  return readTokenRequest({ contentType: FORM, authorization: undefined, body: GRANT, ...request });
}

function problemOf(result: TokenRequest) {
  if (!('problem' in result)) throw new Error(`expected a problem, got ${JSON.stringify(result)}`);
  return result.problem;
}

describe('readTokenRequest: the two client authentication methods', () => {
  it('reads HTTP Basic credentials (client_secret_basic)', () => {
    expect(read({ authorization: basicHeader('client-1', 's3cret') })).toEqual({
      credentials: { clientId: 'client-1', secret: 's3cret', method: 'client_secret_basic' },
    });
  });

  it('reads client_id and client_secret from the body (client_secret_post)', () => {
    expect(read({ body: `${GRANT}&client_id=client-1&client_secret=s3cret` })).toEqual({
      credentials: { clientId: 'client-1', secret: 's3cret', method: 'client_secret_post' },
    });
  });

  it('reads body parameters in any order', () => {
    expect(read({ body: `client_secret=s3cret&client_id=client-1&${GRANT}` })).toEqual({
      credentials: { clientId: 'client-1', secret: 's3cret', method: 'client_secret_post' },
    });
  });

  it('accepts the Basic scheme name case-insensitively (RFC 7235 §2.1)', () => {
    const token = Buffer.from('client-1:s3cret').toString('base64');
    for (const scheme of ['basic', 'BASIC', 'bAsIc']) {
      expect(read({ authorization: `${scheme} ${token}` })).toEqual({
        credentials: { clientId: 'client-1', secret: 's3cret', method: 'client_secret_basic' },
      });
    }
  });

  it('refuses an Authorization header longer than 4096 characters before reading it, and reads one with spaces around the credentials', () => {
    const token = Buffer.from('client-1:s3cret').toString('base64');
    expect(problemOf(read({ authorization: `Basic ${token}${' '.repeat(4096)}` }))).toEqual({
      error: 'invalid_request',
      description: 'the Authorization header is longer than 4096 characters',
      basic: true,
    });
    expect(read({ authorization: `Basic   ${token}   ` })).toEqual({
      credentials: { clientId: 'client-1', secret: 's3cret', method: 'client_secret_basic' },
    });
    for (const authorization of [`Basic${token}`, 'Basic ', `Basic ${token}!`, `Basic ${token} x`]) {
      expect(problemOf(read({ authorization })).description).toBe('the Authorization header must be HTTP Basic credentials');
    }
  });

  it('refuses both methods at once with invalid_request (RFC 6749 §2.3: one method per request)', () => {
    const both = read({ authorization: basicHeader('client-1', 's3cret'), body: `${GRANT}&client_id=client-1&client_secret=s3cret` });
    expect(problemOf(both).error).toBe('invalid_request');
    expect('credentials' in both).toBe(false);
  });

  it('refuses Basic together with only client_id, or only client_secret, in the body', () => {
    expect(problemOf(read({ authorization: basicHeader('client-1', 's3cret'), body: `${GRANT}&client_id=client-1` })).error).toBe(
      'invalid_request',
    );
    expect(problemOf(read({ authorization: basicHeader('client-1', 's3cret'), body: `${GRANT}&client_secret=s3cret` })).error).toBe(
      'invalid_request',
    );
  });
});

describe('readTokenRequest: content type', () => {
  it('accepts the form media type with a charset parameter', () => {
    for (const contentType of [`${FORM}; charset=UTF-8`, `${FORM};charset=utf-8`, `${FORM} ; charset="utf-8"`]) {
      expect(read({ contentType, authorization: basicHeader('client-1', 's3cret') })).toEqual({
        credentials: { clientId: 'client-1', secret: 's3cret', method: 'client_secret_basic' },
      });
    }
  });

  it('accepts the media type in any letter case (RFC 9110 §8.3.1)', () => {
    expect('credentials' in read({ contentType: 'Application/X-WWW-Form-URLEncoded', authorization: basicHeader('c', 's') })).toBe(true);
  });

  it('refuses a missing or different content type with invalid_request', () => {
    for (const contentType of [undefined, '', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', `${FORM}x`, 'application/x-www-form']) {
      const problem = problemOf(read({ contentType, body: `${GRANT}&client_id=c&client_secret=s` }));
      expect(problem.error, String(contentType)).toBe('invalid_request');
    }
  });

  it('judges the content type before the grant type', () => {
    expect(problemOf(read({ contentType: 'application/json', body: 'grant_type=password' })).error).toBe('invalid_request');
  });
});

describe('readTokenRequest: grant type', () => {
  it('refuses another grant type with unsupported_grant_type', () => {
    for (const grantType of ['password', 'authorization_code', 'refresh_token', 'Client_Credentials', 'client_credentials%20']) {
      const problem = problemOf(read({ body: `grant_type=${grantType}&client_id=c&client_secret=s` }));
      expect(problem.error, grantType).toBe('unsupported_grant_type');
    }
  });

  it('refuses a missing grant_type with invalid_request', () => {
    expect(problemOf(read({ body: 'client_id=c&client_secret=s' })).error).toBe('invalid_request');
    expect(problemOf(read({ body: '', authorization: basicHeader('c', 's') })).error).toBe('invalid_request');
  });

  it('treats an empty grant_type as omitted (RFC 6749 §3.1): invalid_request, not unsupported_grant_type', () => {
    expect(problemOf(read({ body: 'grant_type=&client_id=c&client_secret=s' })).error).toBe('invalid_request');
    expect(problemOf(read({ body: 'grant_type&client_id=c&client_secret=s' })).error).toBe('invalid_request');
  });

  it('decodes the grant_type parameter name and value like any form field', () => {
    expect('credentials' in read({ body: 'grant%5Ftype=client%5Fcredentials&client_id=c&client_secret=s' })).toBe(true);
  });
});

describe('readTokenRequest: repeated and unknown parameters', () => {
  it('refuses a repeated parameter with invalid_request (RFC 6749 §3.2)', () => {
    for (const body of [
      `${GRANT}&${GRANT}&client_id=c&client_secret=s`,
      `${GRANT}&client_id=c&client_id=c&client_secret=s`,
      `${GRANT}&client_id=c&client_secret=s&client_secret=t`,
      `${GRANT}&scope=a&scope=b&client_id=c&client_secret=s`,
    ]) {
      expect(problemOf(read({ body })).error, body).toBe('invalid_request');
    }
  });

  it('refuses a repeated parameter even when one of its values is empty', () => {
    for (const body of [
      `${GRANT}&client_id=c&client_id=&client_secret=s`,
      `${GRANT}&client_id=&client_id=c&client_secret=s`,
      `${GRANT}&grant_type=&client_id=c&client_secret=s`,
      `${GRANT}&client_id=c&client_secret=s&client_secret`,
    ]) {
      expect(problemOf(read({ body })).error, body).toBe('invalid_request');
    }
    // also when the credentials come as Basic: the empty pair is still a repetition
    expect(problemOf(read({ authorization: basicHeader('c', 's'), body: `${GRANT}&client_id=&client_id=` })).error).toBe('invalid_request');
  });

  it('refuses a parameter repeated under a percent-encoded name', () => {
    expect(problemOf(read({ body: `${GRANT}&grant%5Ftype=client_credentials&client_id=c&client_secret=s` })).error).toBe('invalid_request');
  });

  it('ignores unknown parameters and scope (RFC 6749 §3.2, §4.4.2)', () => {
    expect(read({ body: `${GRANT}&scope=read%20write&audience=x&foo=bar&client_id=c&client_secret=s` })).toEqual({
      credentials: { clientId: 'c', secret: 's', method: 'client_secret_post' },
    });
    expect(read({ body: `foo&${GRANT}&=x&bar=`, authorization: basicHeader('c', 's') })).toEqual({
      credentials: { clientId: 'c', secret: 's', method: 'client_secret_basic' },
    });
  });

  it('ignores empty pairs between separators', () => {
    expect(read({ body: `&&${GRANT}&&client_id=c&&client_secret=s&` })).toEqual({
      credentials: { clientId: 'c', secret: 's', method: 'client_secret_post' },
    });
  });

  it('refuses a body that is not validly percent-encoded with invalid_request', () => {
    for (const body of [`${GRANT}&client_id=c&client_secret=%zz`, `${GRANT}&client_id=c%&client_secret=s`, `${GRANT}&client_id=%C3&client_secret=s`]) {
      expect(problemOf(read({ body })).error, body).toBe('invalid_request');
    }
  });
});

describe('readTokenRequest: encoding of ids and secrets in the body', () => {
  it('decodes + as a space and %2B as a plus', () => {
    expect(read({ body: `${GRANT}&client_id=my+client&client_secret=a%2Bb+c` })).toEqual({
      credentials: { clientId: 'my client', secret: 'a+b c', method: 'client_secret_post' },
    });
  });

  it('decodes percent-encoded reserved and non-ASCII characters', () => {
    expect(read({ body: `${GRANT}&client_id=caf%C3%A9%2F1&client_secret=%26%3D%3A%25%2F%3F%23` })).toEqual({
      credentials: { clientId: 'café/1', secret: '&=:%/?#', method: 'client_secret_post' },
    });
  });

  it('round-trips arbitrary ids and secrets encoded as a form', () => {
    const clientId = 'ops & planning = 100% ü';
    const secret = 'p@ss word+/:;=&?%é€𝄞';
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString();
    expect(read({ body })).toEqual({ credentials: { clientId, secret, method: 'client_secret_post' } });
  });
});

describe('readTokenRequest: encoding of ids and secrets in Basic credentials (RFC 6749 §2.3.1)', () => {
  it('form-decodes the id and the secret: + is a space, %2B a plus', () => {
    expect(read({ authorization: rawBasic('my+client:a%2Bb+c') })).toEqual({
      credentials: { clientId: 'my client', secret: 'a+b c', method: 'client_secret_basic' },
    });
  });

  it('form-decodes percent-encoded characters, including a colon in the id', () => {
    expect(read({ authorization: rawBasic('org%3Aclient:caf%C3%A9%25') })).toEqual({
      credentials: { clientId: 'org:client', secret: 'café%', method: 'client_secret_basic' },
    });
  });

  it('splits at the first colon, so a secret may contain a raw colon', () => {
    expect(read({ authorization: rawBasic('client-1:a:b::c') })).toEqual({
      credentials: { clientId: 'client-1', secret: 'a:b::c', method: 'client_secret_basic' },
    });
  });

  it('round-trips arbitrary ids and secrets encoded as the RFC asks', () => {
    const clientId = 'ops:planning + 100% ü';
    const secret = 'p@ss word+/:;=&?%é€𝄞';
    expect(read({ authorization: basicHeader(clientId, secret) })).toEqual({ credentials: { clientId, secret, method: 'client_secret_basic' } });
  });

  it('reads raw UTF-8 in the decoded credentials', () => {
    expect(read({ authorization: rawBasic(Buffer.from('clïent:sécret', 'utf8')) })).toEqual({
      credentials: { clientId: 'clïent', secret: 'sécret', method: 'client_secret_basic' },
    });
  });

  it('tolerates extra spaces around the credentials token', () => {
    const token = Buffer.from('c:s').toString('base64');
    expect(read({ authorization: `Basic   ${token}  ` })).toEqual({ credentials: { clientId: 'c', secret: 's', method: 'client_secret_basic' } });
  });

  it('refuses credentials that are not validly form-encoded with invalid_request, basic true', () => {
    for (const userPass of ['client-1:100%', 'client%zz:s', 'c:%C3']) {
      expect(problemOf(read({ authorization: rawBasic(userPass) })), userPass).toMatchObject({ error: 'invalid_request', basic: true });
    }
  });

  it('refuses a decoded value with no colon with invalid_request, basic true', () => {
    for (const userPass of ['client-1', 'client-1%3As3cret', '']) {
      expect(problemOf(read({ authorization: `Basic ${Buffer.from(userPass).toString('base64')}` })), userPass).toMatchObject({
        error: 'invalid_request',
        basic: true,
      });
    }
  });

  it('refuses malformed base64 and other schemes with invalid_request, basic true', () => {
    for (const authorization of [
      'Basic',
      'Basic ',
      'Basic !!!!',
      'Basic Y2xpZW50OnNlY3JldA==x',
      'Basic Y2xpZW50:nNlY3JldA==',
      'Basic Y2xpZW50OnNlY3JldA===',
      'Basic Y2xp ZW50OnNlY3JldA==',
      'Basic Y2xpZW50OnNlY3JldA_-',
      // Node would read both as a:b, dropping what does not fit
      'Basic YTpiY',
      'Basic YTpi=',
      'BasicY2xpZW50OnNlY3JldA==',
      'Bearer abc.def.ghi',
      'Digest username="c"',
      'client-1:s3cret',
      '',
    ]) {
      expect(problemOf(read({ authorization })), authorization).toMatchObject({ error: 'invalid_request', basic: true });
    }
  });

  it('refuses credentials that decode to invalid UTF-8 with invalid_request, basic true', () => {
    expect(problemOf(read({ authorization: rawBasic(Buffer.from([0xff, 0x3a, 0x61])) }))).toMatchObject({ error: 'invalid_request', basic: true });
    expect(problemOf(read({ authorization: rawBasic(Buffer.from([0x61, 0x3a, 0xc3, 0x28])) }))).toMatchObject({ error: 'invalid_request', basic: true });
  });

  it('refuses an empty id or secret with invalid_client, basic true', () => {
    for (const userPass of [':s3cret', 'client-1:', ':']) {
      expect(problemOf(read({ authorization: rawBasic(userPass) })), userPass).toMatchObject({ error: 'invalid_client', basic: true });
    }
  });
});

describe('readTokenRequest: missing credentials and the basic flag', () => {
  it('refuses a request without any credentials with invalid_client', () => {
    const problem = problemOf(read({ body: GRANT }));
    expect(problem.error).toBe('invalid_client');
    // Nothing was sent at all: the 401 advertises Basic, the method the spec asks for (RFC 6749 §5.2 "MAY return 401").
    expect(problem.basic).toBe(true);
  });

  it('refuses client_id without client_secret (and the reverse) with invalid_client, basic false', () => {
    expect(problemOf(read({ body: `${GRANT}&client_id=c` }))).toMatchObject({ error: 'invalid_client', basic: false });
    expect(problemOf(read({ body: `${GRANT}&client_secret=s` }))).toMatchObject({ error: 'invalid_client', basic: false });
  });

  it('treats empty client_id or client_secret in the body as omitted (RFC 6749 §3.1)', () => {
    expect(problemOf(read({ body: `${GRANT}&client_id=c&client_secret=` }))).toMatchObject({ error: 'invalid_client', basic: false });
    expect(problemOf(read({ body: `${GRANT}&client_id=&client_secret=s` }))).toMatchObject({ error: 'invalid_client', basic: false });
    expect(problemOf(read({ body: `${GRANT}&client_id&client_secret` }))).toMatchObject({ error: 'invalid_client' });
  });

  it('does not count empty body credentials as a second method next to Basic', () => {
    expect(read({ authorization: basicHeader('c', 's'), body: `${GRANT}&client_id=&client_secret=` })).toEqual({
      credentials: { clientId: 'c', secret: 's', method: 'client_secret_basic' },
    });
  });

  it('sets basic only for problems from the Authorization header', () => {
    expect(problemOf(read({ authorization: 'Basic !!!!' })).basic).toBe(true);
    expect(problemOf(read({ body: `${GRANT}&client_id=c` })).basic).toBe(false);
    expect(problemOf(read({ body: 'grant_type=password&client_id=c&client_secret=s' })).basic).toBe(false);
    expect(problemOf(read({ contentType: 'application/json', body: `${GRANT}&client_id=c&client_secret=s` })).basic).toBe(false);
  });

  it('gives every problem a description', () => {
    for (const request of [
      { contentType: 'text/plain' },
      { body: 'grant_type=password' },
      { body: GRANT },
      { authorization: 'Basic !!!!' },
      { authorization: basicHeader('c', 's'), body: `${GRANT}&client_id=c` },
    ]) {
      expect(problemOf(read(request)).description).toMatch(/\S/);
    }
  });
});
