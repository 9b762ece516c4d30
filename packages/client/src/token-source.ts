import { ApiError } from './errors.js';
import { retrying, type RetryPolicy } from './retries.js';

export interface TokenSourceOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  fetch: typeof fetch;
  retry: RetryPolicy;
  /** The share of `expires_in` after which a token is renewed (spec: 80 to 90 %). */
  renewAfter: number;
  /** How the client authenticates (RFC 6749 §2.3.1); default `client_secret_basic`. */
  clientAuthentication?: ClientAuthentication;
}

/**
 * HTTP Basic, as the spec asks; or the id and secret in the form, for a browser page: a refused Basic login
 * answers with a Basic challenge, on which a browser opens its own login dialog and holds the request.
 */
export type ClientAuthentication = 'client_secret_basic' | 'client_secret_post';

/**
 * Bearer tokens of one client (OAuth 2.0 client credentials, HTTP Basic, as the spec asks): fetched
 * on first use, shared by every call, renewed once `renewAfter` of their lifetime has passed, and
 * on demand when the API refused one (`error="invalid_token"`).
 */
export interface TokenSource {
  current(): Promise<string>;
  /** Forgets `refused`, unless a newer token has replaced it already (calls refused at once renew once). */
  refused(refused: string): void;
}

interface Token {
  value: string;
  renewAt: number;
  expiresAt: number;
}

export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const { tokenUrl, clientId, clientSecret, fetch, retry, renewAfter, clientAuthentication = 'client_secret_basic' } = options;
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  // form-encoded first (RFC 6749 §2.3.1), which leaves only ASCII for btoa
  const basic = `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)}`;
  if (clientAuthentication === 'client_secret_post') {
    form.set('client_id', clientId);
    form.set('client_secret', clientSecret);
  }
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...(clientAuthentication === 'client_secret_basic' ? { authorization: basic } : {}) };
  let token: Token | undefined;
  let pending: Promise<Token> | undefined;

  async function request(): Promise<Token> {
    const asked = Date.now();
    // a token request changes nothing that matters on the server: asking again is always safe
    const response = await retrying(retry, { repeatable: true }, () =>
      fetch(tokenUrl, { method: 'POST', headers, body: form.toString() }),
    );
    if (response.status !== 200) throw await ApiError.of(response, `the token endpoint refused client '${clientId}'`);
    const { access_token: value, expires_in: lifetime } = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof value !== 'string' || typeof lifetime !== 'number' || !(lifetime > 0)) {
      throw new Error(`the token endpoint answered client '${clientId}' without an access_token and a positive expires_in`);
    }
    return { value, renewAt: asked + lifetime * 1000 * renewAfter, expiresAt: asked + lifetime * 1000 };
  }

  return {
    async current() {
      const now = Date.now();
      if (token !== undefined && now < token.renewAt) return token.value;
      pending ??= request().finally(() => (pending = undefined));
      try {
        token = await pending;
      } catch (error) {
        // renewal is early on purpose: a token not yet expired serves while the token endpoint cannot
        if (token !== undefined && now < token.expiresAt) return token.value;
        throw error;
      }
      return token.value;
    },
    refused(refused) {
      if (token?.value === refused) token = undefined;
    },
  };
}
