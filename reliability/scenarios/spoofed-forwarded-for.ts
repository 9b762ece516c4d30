// Spoofed X-Forwarded-For: the gateway believes the header only from its trusted proxy (127.0.0.1 in
// the suite) and then only the address that proxy saw. A client that connects from elsewhere (127.0.0.2,
// 127.0.0.3: loopback, not trusted) and names a victim's address must be counted, limited and blocked
// as itself; a client that puts a victim's address in front of the chain its proxy extends, likewise.
import { send, type RawResponse } from '../lib/http.ts';
import { excerpt, StatusTally, type Finding, type ScenarioReport } from '../lib/report.ts';
import { BASE_PATH, type SuiteStack, type SuiteTenant } from '../lib/suite-stack.ts';

/** The gateway's LOGIN_FAILURE_LIMIT and TOKEN_RATE_LIMIT, at their defaults in the suite. */
const LOGIN_FAILURE_LIMIT = 10;
const TOKEN_RATE_LIMIT = 50;
const UNTRUSTED = '127.0.0.2';
const UNTRUSTED_BURSTER = '127.0.0.3';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

type Rows = [string, string | number][];

export async function spoofedForwardedFor(suite: SuiteStack): Promise<ScenarioReport> {
  const started = performance.now();
  const tally = new StatusTally();
  const findings: Finding[] = [];
  const tenant = await suite.newTenant('spoofed');
  const gateway = suite.stack.gateway;
  const victim = randomAddress('198.51.100');
  const spoofedVictim = randomAddress('198.51.100');
  const proxied = randomAddress('203.0.113');

  const login = async (secret: string, forwardedFor: string | undefined, from?: string) => {
    const response = await send(
      gateway,
      {
        method: 'POST',
        path: '/oauth2/token',
        headers: { ...FORM, ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }), authorization: basic(tenant, secret) },
        body: 'grant_type=client_credentials',
      },
      from,
    );
    tally.record(response?.status);
    return response;
  };
  const flag = (rule: string, request: string, response: RawResponse | undefined) =>
    findings.push({ rule, request, status: response?.status, excerpt: response === undefined ? 'connection closed' : excerpt(response.body) });

  // 1. an untrusted peer fails logins in the victim's name: it blocks itself, never the victim
  const fromUntrusted = await failUntilBlocked((attempt) => login(`wrong-${attempt}`, victim, UNTRUSTED));
  if (fromUntrusted === undefined) flag(`${UNTRUSTED} is blocked after ${LOGIN_FAILURE_LIMIT} failed logins of its own`, `POST /oauth2/token from ${UNTRUSTED}, X-Forwarded-For: ${victim}`, undefined);
  const victimLogin = await login(tenant.secret, victim);
  if (victimLogin?.status !== 200) flag('the address named by an untrusted peer is not blocked', `POST /oauth2/token via the proxy for ${victim}`, victimLogin);
  const untrustedApi = await send(gateway, { method: 'GET', path: `${BASE_PATH}/ping`, headers: { authorization: `Bearer ${await suite.token(tenant)}` } }, UNTRUSTED);
  tally.record(untrustedApi?.status);
  if (untrustedApi?.status !== 200) flag('a blocked address keeps the API (only the token endpoint refuses it)', `GET /ping from ${UNTRUSTED}`, untrustedApi);

  // 2. through the proxy, a client puts the victim in front of the chain: the proxy's own entry counts
  const spoofedChain = (attempt: number) => login(`wrong-chain-${attempt}`, `${spoofedVictim}, ${proxied}`);
  const viaProxy = await failUntilBlocked(spoofedChain);
  if (viaProxy === undefined) flag(`the address the proxy saw is blocked after ${LOGIN_FAILURE_LIMIT} failed logins`, `POST /oauth2/token, X-Forwarded-For: ${spoofedVictim}, ${proxied}`, undefined);
  const spoofedVictimLogin = await login(tenant.secret, spoofedVictim);
  if (spoofedVictimLogin?.status !== 200) flag('an address put in front of the chain is not blocked', `POST /oauth2/token via the proxy for ${spoofedVictim}`, spoofedVictimLogin);

  // 3. an untrusted peer's burst, every request naming another address: one rate, its own
  const burst = await Promise.all(
    Array.from({ length: 4 * TOKEN_RATE_LIMIT }, (_, index) =>
      send(gateway, { method: 'POST', path: '/oauth2/token', headers: { ...FORM, 'x-forwarded-for': `192.0.2.${index % 250}` }, body: 'grant_type=client_credentials' }, UNTRUSTED_BURSTER),
    ),
  );
  for (const response of burst) tally.record(response?.status);
  const limited = burst.filter((response) => response?.status === 429).length;
  if (limited === 0) flag(`${4 * TOKEN_RATE_LIMIT} token requests at once from one untrusted peer get 429s, whatever addresses they name`, `POST /oauth2/token from ${UNTRUSTED_BURSTER}`, burst[0]);
  if (tally.count((status) => status >= 500) > 0) findings.push({ rule: 'no 5xx', request: 'any of the above', excerpt: 'see the 5xx row' });

  const rows: Rows = [
    [`failed logins from ${UNTRUSTED} naming another address, before ${UNTRUSTED} was blocked`, fromUntrusted ?? 'not blocked'],
    ['the named address, right secret, through the proxy', victimLogin?.status ?? 'connection closed'],
    [`${UNTRUSTED} blocked, API call`, untrustedApi?.status ?? 'connection closed'],
    ['failed logins with a spoofed front of the chain before the proxy-seen address was blocked', viaProxy ?? 'not blocked'],
    ['the spoofed front address, right secret', spoofedVictimLogin?.status ?? 'connection closed'],
    [`${4 * TOKEN_RATE_LIMIT} token requests at once from ${UNTRUSTED_BURSTER}, each naming another address: 429s`, limited],
  ];
  return {
    name: 'spoofed-forwarded-for',
    did:
      `From ${UNTRUSTED} (not the gateway's trusted proxy), failed logins naming a victim in X-Forwarded-For until the connection is closed; ` +
      'then the victim through the proxy with the right secret, and an API call from the blocked peer. Through the proxy, failed logins whose ' +
      'chain starts with a spoofed address; then that address with the right secret. Last a burst of malformed token requests from ' +
      `${UNTRUSTED_BURSTER}, each naming another address. Each peer must be counted as itself.`,
    rows: [...tally.rows(), ...rows],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Fails logins until the connection is closed (blocked): how many failed first, or undefined when never blocked. */
async function failUntilBlocked(attempt: (index: number) => Promise<RawResponse | undefined>): Promise<number | undefined> {
  for (let index = 1; index <= LOGIN_FAILURE_LIMIT + 5; index += 1) {
    if ((await attempt(index)) === undefined) return index - 1;
    // under the client's own rate (TOKEN_RATE_LIMIT_PER_CLIENT, 5 a second), which would answer 429 first
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return undefined;
}

function basic({ clientId }: SuiteTenant, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

function randomAddress(prefix: string): string {
  return `${prefix}.${1 + Math.floor(Math.random() * 253)}`;
}
