/**
 * Reads an OAuth 2.0 token request (RFC 6749 §4.4, §2.3.1) as the spec allows it: grant type
 * client_credentials, the client's id and secret as HTTP Basic credentials or in the form body,
 * never both. Pure: no I/O, every outcome a value.
 */

import { credentialsOf, MAX_AUTHORIZATION_LENGTH } from '@rm/service-kit';

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

/**
 * An RFC 6749 §5.2 error; `basic`: a 401 carries a Basic challenge, because the client tried HTTP
 * Basic or sent no credentials at all (RFC 7235 wants a challenge on a 401; Basic is the spec's way).
 */
export interface TokenRequestError {
  error: OAuthErrorCode;
  description: string;
  basic: boolean;
}

export interface ClientCredentials {
  clientId: string;
  secret: string;
  /** How the client authenticated: `client_secret_basic` or `client_secret_post`. */
  method: 'client_secret_basic' | 'client_secret_post';
}

export type TokenRequest = { credentials: ClientCredentials } | { problem: TokenRequestError };

export interface RawTokenRequest {
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function readTokenRequest({ contentType, authorization, body }: RawTokenRequest): TokenRequest {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== FORM_MEDIA_TYPE) return invalidRequest(`the body must be ${FORM_MEDIA_TYPE}`);
  const parameters = parseForm(body);
  if (typeof parameters === 'string') return invalidRequest(parameters);

  const grantType = parameters.get('grant_type');
  if (grantType === undefined) return invalidRequest('grant_type is required');
  if (grantType !== 'client_credentials') {
    return { problem: { error: 'unsupported_grant_type', description: 'only grant_type client_credentials is supported', basic: false } };
  }

  const inBody = parameters.has('client_id') || parameters.has('client_secret');
  if (authorization !== undefined) {
    if (inBody) return invalidRequest('use one client authentication method: HTTP Basic or client_id and client_secret in the body, not both');
    return basicCredentials(authorization);
  }
  const clientId = parameters.get('client_id');
  const secret = parameters.get('client_secret');
  if (clientId === undefined || secret === undefined) {
    return { problem: { error: 'invalid_client', description: 'client authentication is required: HTTP Basic, or client_id and client_secret', basic: !inBody } };
  }
  return { credentials: { clientId, secret, method: 'client_secret_post' } };
}

function basicCredentials(authorization: string): TokenRequest {
  if (authorization.length > MAX_AUTHORIZATION_LENGTH) {
    return invalidRequest(`the Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters`, true);
  }
  const encoded = credentialsOf(authorization, 'Basic');
  if (encoded === undefined || !BASE64.test(encoded)) return invalidRequest('the Authorization header must be HTTP Basic credentials', true);
  const bytes = Buffer.from(encoded, 'base64');
  // Node skips what does not fit; only the canonical spelling is taken
  const decoded = bytes.toString('base64') === encoded ? decodeUtf8(bytes) : undefined;
  const colon = decoded?.indexOf(':') ?? -1;
  if (decoded === undefined || colon < 0) return invalidRequest('the Basic credentials must be base64 of client_id:client_secret', true);
  // RFC 6749 §2.3.1: both are form-encoded before they are joined
  const clientId = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  if (clientId === undefined || secret === undefined) return invalidRequest('the Basic credentials are not validly form-encoded', true);
  if (clientId === '' || secret === '') return { problem: { error: 'invalid_client', description: 'client authentication failed', basic: true } };
  return { credentials: { clientId, secret, method: 'client_secret_basic' } };
}

/**
 * The form's parameters; a message when one is repeated or badly encoded (§3.2: a parameter must
 * not be included more than once). An empty value counts as omitted (§3.1).
 */
function parseForm(body: string): Map<string, string> | string {
  const parameters = new Map<string, string>();
  const seen = new Set<string>();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const name = formDecode(separator < 0 ? pair : pair.slice(0, separator));
    const value = formDecode(separator < 0 ? '' : pair.slice(separator + 1));
    if (name === undefined || value === undefined) return 'the body is not validly form-encoded';
    if (seen.has(name)) return `${name} must not be repeated`;
    seen.add(name);
    if (value !== '') parameters.set(name, value);
  }
  return parameters;
}

function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function invalidRequest(description: string, basic = false): TokenRequest {
  return { problem: { error: 'invalid_request', description, basic } };
}
