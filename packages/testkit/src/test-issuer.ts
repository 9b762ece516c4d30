import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from 'jose';

const SIGNING_ALGORITHM = 'ES256';
export const JWKS_PATH = '/.well-known/jwks.json';
const REVOCATIONS_PATH = '/oauth2/revocations';
const NO_REVOCATIONS = JSON.stringify({ clients: {}, tenants: {} });

export interface MintOptions {
  /** The `tenant` claim (the claim service-kit's verifier reads); null mints a token without one. */
  tenant: string | null;
  /** The `sub` claim; default 'test-client'. */
  clientId?: string;
  /** Lifetime from now; default 300. Negative values mint an already expired token. */
  expiresInSeconds?: number;
  /** `nbf` as jose takes it: epoch seconds, a Date, or a relative time such as '5m'. */
  notBefore?: number | string | Date;
  /** Override the issuer's `iss`. */
  issuer?: string;
  /** Override the issuer's `aud`. */
  audience?: string;
  /**
   * Sign with another algorithm ('RS256', 'HS256', 'none', …) and a key that is not in the JWKS,
   * keeping the issuer's `kid`: the token must be rejected.
   */
  algorithm?: string;
  /** Sign with an ES256 key that is not in the JWKS, keeping the issuer's `kid`. */
  signWithUnknownKey?: boolean;
  /** The `typ` header; `at+jwt` (an access token, as the gateway issues) unless told. */
  type?: string;
  /** More claims (scopes, …); the standard ones above win. */
  claims?: Record<string, unknown>;
}

export interface TestIssuer {
  issuer: string;
  audience: string;
  /** The public key set that verifies the tokens of mint() (without `algorithm`/`signWithUnknownKey`). */
  jwks: { keys: JWK[] };
  mint(options: MintOptions): Promise<string>;
  /** Serves `jwks` at `${url}` (path /.well-known/jwks.json), and an empty revocation list, on 127.0.0.1 and a free port. */
  serveJwks(): Promise<{ url: string; close(): Promise<void> }>;
}

/** An OAuth2-like token issuer for tests: an ES256 key pair with a `kid`, and its JWKS. */
export async function createTestIssuer(options: { issuer?: string; audience?: string } = {}): Promise<TestIssuer> {
  const issuer = options.issuer ?? 'https://issuer.test/';
  const audience = options.audience ?? 'resource-management';
  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALGORITHM, use: 'sig' };
  const jwks = { keys: [publicJwk] };

  async function mint(mintOptions: MintOptions): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      ...mintOptions.claims,
      ...(mintOptions.tenant === null ? {} : { tenant: mintOptions.tenant }),
    };
    const algorithm = mintOptions.algorithm ?? SIGNING_ALGORITHM;
    const jwt = algorithm === 'none' ? new UnsecuredJWT(payload) : new SignJWT(payload);
    jwt
      .setIssuer(mintOptions.issuer ?? issuer)
      .setAudience(mintOptions.audience ?? audience)
      .setSubject(mintOptions.clientId ?? 'test-client')
      .setIssuedAt(now)
      .setExpirationTime(now + (mintOptions.expiresInSeconds ?? 300));
    if (mintOptions.notBefore !== undefined) jwt.setNotBefore(mintOptions.notBefore);
    if (jwt instanceof UnsecuredJWT) return jwt.encode();

    const key =
      mintOptions.signWithUnknownKey === true || algorithm !== SIGNING_ALGORITHM
        ? await unknownKey(algorithm)
        : privateKey;
    return jwt.setProtectedHeader({ alg: algorithm, kid, typ: mintOptions.type ?? 'at+jwt' }).sign(key);
  }

  return { issuer, audience, jwks, mint, serveJwks: () => serveJwks(jwks) };
}

async function unknownKey(algorithm: string): Promise<CryptoKey | Uint8Array> {
  if (algorithm.startsWith('HS')) return randomBytes(64);
  const { privateKey } = await generateKeyPair(algorithm);
  return privateKey;
}

async function serveJwks(jwks: { keys: JWK[] }): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify(jwks);
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === JWKS_PATH) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else if (request.method === 'GET' && request.url === REVOCATIONS_PATH) {
      // the gateway's list of revoked tokens, which every service fetches: none here
      response.writeHead(200, { 'content-type': 'application/json' }).end(NO_REVOCATIONS);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${JWKS_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
