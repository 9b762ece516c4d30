// Auth and tenants: tokens that must not open anything (through the gateway and straight at each
// owner), token brute force from one address, and a client of tenant A probing every path with tenant
// B's ids and cursors, whose answers must be those for ids that never existed.
import { randomUUID } from 'node:crypto';
import { base64url, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { MongoClient } from 'mongodb';
import { createSigningKeyStore } from '@rm/gateway/testing';
import { apiClient, eventually, talliedClient } from '../lib/api.ts';
import { checkResponse } from '../lib/checks.ts';
import { bodies } from '../lib/fixtures.ts';
import { jsonRequest, send, type RawResponse } from '../lib/http.ts';
import { excerpt, StatusTally, type Finding, type ScenarioReport } from '../lib/report.ts';
import { BASE_PATH, type ServiceName, type SuiteStack, type SuiteTenant, type TypedClient } from '../lib/suite-stack.ts';

/** Paths every bad token is tried on, with the service that owns them. */
const TOKEN_PATHS: { service: ServiceName; method: string; path: string; body?: unknown }[] = [
  { service: 'gateway', method: 'GET', path: '/ping' },
  { service: 'employees', method: 'GET', path: '/employee' },
  { service: 'employees', method: 'PUT', path: '/employee/auth-probe', body: bodies.employee() },
  { service: 'employees', method: 'GET', path: '/employee/auth-probe/availability' },
  { service: 'transport-resources', method: 'GET', path: '/transport-resource' },
  { service: 'transport-resources', method: 'PUT', path: '/transport-resource/auth-probe', body: bodies.transportResource() },
  { service: 'home-bases', method: 'GET', path: '/home-base' },
  { service: 'home-bases', method: 'GET', path: '/resource-overview/2026-01-05/auth-probe/forecasts' },
  { service: 'deployments', method: 'GET', path: '/deployment' },
  { service: 'deployments', method: 'DELETE', path: '/means/auth-probe/actual/a1' },
  { service: 'matching', method: 'GET', path: '/available-employee' },
  { service: 'matching', method: 'GET', path: '/resource-combination' },
  { service: 'webhooks', method: 'GET', path: '/webhook-subscription' },
  { service: 'webhooks', method: 'PUT', path: '/webhook-subscription/auth-probe', body: bodies.webhookSubscription() },
];
const LOGIN_FAILURE_LIMIT = 10;

type Rows = [string, string | number][];

/** A finding about one answer, or about its absence. */
function finding(rule: string, request: string, response: RawResponse | undefined, detail = excerpt(response?.body ?? '')): Finding {
  return { rule, request, status: response?.status, excerpt: detail };
}

/** The same at either size: every probe is needed once. */
export async function tenantsAndAuth(suite: SuiteStack): Promise<ScenarioReport> {
  const started = performance.now();
  const tally = new StatusTally();
  const findings: Finding[] = [];
  const a = await suite.newTenant('tenant-a');
  const b = await suite.newTenant('tenant-b');
  const rows: [string, string | number][] = [];

  rows.push(...(await badTokens(suite, a, tally, findings)));
  rows.push(...(await bruteForce(suite, a, tally, findings)));
  rows.push(...(await crossTenant(suite, a, b, tally, findings)));
  return {
    name: 'tenants-and-auth',
    did:
      'Tokens signed with the gateway\'s own key but expired, not yet valid, of another issuer or audience, without tenant; ' +
      '`alg: none`; re-signed with another key under the same kid; HS256 with the public key; a payload changed under a valid ' +
      `signature: each on ${TOKEN_PATHS.length} paths through the gateway and straight at each owner, expecting 401. ` +
      `Failed logins from one address (X-Forwarded-For; the gateway trusts 127.0.0.1 as its proxy) until it is blocked, then the right ` +
      'secret and an API call from it, another address meanwhile, and a burst over the token rate. Tenant B creates one of every kind; ' +
      "tenant A sends GET, PUT with If-Match, DELETE and (last) PUT to every path with B's ids and with ids that never existed, " +
      "and lists with B's cursors and forged ones: the answers must be the same, ids aside.",
    rows: [...tally.rows(), ...rows],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

// ---- tokens ---------------------------------------------------------------------------------------

async function badTokens(suite: SuiteStack, tenant: SuiteTenant, tally: StatusTally, findings: Finding[]): Promise<Rows> {
  const { kid, key } = await gatewaySigningKey(suite);
  const real = await suite.token(tenant);
  const claims = JSON.parse(Buffer.from(real.split('.')[1]!, 'base64url').toString()) as JWTPayload;
  const now = Math.floor(Date.now() / 1000);
  const sign = (payload: JWTPayload, signingKey: CryptoKey | Uint8Array = key, alg = 'ES256') =>
    new SignJWT(payload).setProtectedHeader({ alg, kid, typ: 'at+jwt' }).sign(signingKey);
  const other = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(other.publicKey);
  const [header, payload, signature] = real.split('.') as [string, string, string];

  const control = await sign({ ...claims, jti: randomUUID() });
  const forged: Record<string, string> = {
    expired: await sign({ ...claims, iat: now - 3_600, exp: now - 600 }),
    'not yet valid': await sign({ ...claims, nbf: now + 600, exp: now + 900 }),
    'foreign issuer': await sign({ ...claims, iss: 'https://issuer.example/' }),
    'foreign audience': await sign({ ...claims, aud: 'another-api' }),
    'no tenant': await sign({ ...claims, tenant: undefined }),
    'alg none': `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid }))}.${payload}.`,
    're-signed with another key': await sign(claims, other.privateKey),
    'HS256 with a public key as secret': await sign(claims, new TextEncoder().encode(JSON.stringify(publicJwk)), 'HS256'),
    'payload changed under the signature': [header, base64url.encode(JSON.stringify({ ...claims, tenant: 'other' })), signature].join('.'),
    garbage: 'not-a-token',
  };

  let accepted = 0;
  let controlOpened = 0;
  let tried = 0;
  for (const { service, method, path, body } of TOKEN_PATHS) {
    const origins = service === 'gateway' ? [suite.stack.gateway] : [suite.stack.gateway, suite.stack.origins[service]];
    for (const origin of origins) {
      const request = (token: string) => jsonRequest(method, `${BASE_PATH}${path}`, token, body);
      const controlResponse = await send(origin, request(control));
      if (controlResponse !== undefined && controlResponse.status !== 401) controlOpened += 1;
      for (const [name, token] of Object.entries(forged)) {
        const response = await send(origin, request(token));
        tally.record(response?.status);
        tried += 1;
        if (response?.status !== 401) {
          accepted += 1;
          findings.push(finding(`token ${name} not refused`, `${method} ${origin}${BASE_PATH}${path}`, response));
        } else findings.push(...checkResponse(request(token), response, { note: name }));
      }
    }
  }
  const paths = TOKEN_PATHS.length * 2 - 1;
  if (controlOpened !== paths) {
    findings.push(finding('control token refused', 'gateway key, right claims', undefined, `accepted on ${controlOpened} of ${paths}`));
  }
  return [
    ['bad tokens × paths tried (gateway and owners)', `${tried} (${Object.keys(forged).length} tokens × ${paths} paths)`],
    ['bad tokens accepted', accepted],
    ['control token (same key, right claims) accepted', `${controlOpened} of ${paths} paths`],
  ];
}

/** The key the gateway signs with now, read from its database as a replica reads it. */
async function gatewaySigningKey(suite: SuiteStack): Promise<{ kid: string; key: CryptoKey }> {
  const mongo = new MongoClient(suite.servers.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  try {
    const keys = await createSigningKeyStore(mongo.db(suite.stack.databases.gateway), suite.signingKeyEncryptionKey).all();
    const current = keys.filter((key) => key.activeFrom <= Date.now()).sort((x, y) => y.activeFrom - x.activeFrom)[0];
    if (current === undefined) throw new Error('the gateway has no active signing key');
    return { kid: current.kid, key: (await importJWK(current.privateJwk, current.alg)) as CryptoKey };
  } finally {
    await mongo.close();
  }
}

// ---- brute force ----------------------------------------------------------------------------------

async function bruteForce(suite: SuiteStack, tenant: SuiteTenant, tally: StatusTally, findings: Finding[]): Promise<Rows> {
  const gateway = suite.stack.gateway;
  const address = () => `198.18.${Math.floor(Math.random() * 255)}.${1 + Math.floor(Math.random() * 253)}`;
  const attacker = address();
  const login = (secret: string, from: string) =>
    send(gateway, {
      method: 'POST',
      path: '/oauth2/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': from,
        authorization: `Basic ${Buffer.from(`${tenant.clientId}:${secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });

  let blockedAfter: number | undefined;
  for (let attempt = 1; attempt <= LOGIN_FAILURE_LIMIT + 5 && blockedAfter === undefined; attempt += 1) {
    const response = await login(`wrong-secret-${attempt}`, attacker);
    tally.record(response?.status);
    if (response === undefined) blockedAfter = attempt - 1;
    else if (response.status !== 401) findings.push(finding('failed login not 401', `POST /oauth2/token from ${attacker}`, response));
    // under the client's own rate (TOKEN_RATE_LIMIT_PER_CLIENT, 5 a second), which would answer 429 first
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // the block holds on every replica within moments (a key-value watch)
  await new Promise((resolve) => setTimeout(resolve, 500));
  const rightSecret = await login(tenant.secret, attacker);
  const headers = { 'x-forwarded-for': attacker, authorization: `Bearer ${await suite.token(tenant)}` };
  const apiCall = await send(gateway, { method: 'GET', path: `${BASE_PATH}/ping`, headers });
  const bystander = await login(tenant.secret, address());
  for (const response of [rightSecret, apiCall, bystander]) tally.record(response?.status);
  if (rightSecret !== undefined) findings.push(finding('blocked address got a token', `POST /oauth2/token, ${attacker}`, rightSecret));
  // the block is the token endpoint's: probes, the key set and the API answer a blocked address
  if (apiCall?.status !== 200) findings.push(finding('blocked address lost the API', `GET /ping from ${attacker}`, apiCall));
  if (bystander?.status !== 200) findings.push(finding('another address was refused', 'POST /oauth2/token, right secret', bystander));

  // the rate: a burst of malformed token requests (no secret to hash, no failed login) from one address
  const burster = address();
  const burst = await Promise.all(
    Array.from({ length: 80 }, () =>
      send(gateway, {
        method: 'POST',
        path: '/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': burster },
        body: 'grant_type=client_credentials',
      }),
    ),
  );
  for (const response of burst) tally.record(response?.status);
  const limited = burst.filter((response) => response?.status === 429);
  if (limited.length === 0) {
    const statuses = burst.map((response) => response?.status).join(',');
    findings.push(finding('token rate not limited', `80 × POST /oauth2/token at once from ${burster}`, undefined, statuses));
  }
  for (const response of limited.slice(0, 1)) findings.push(...checkResponse({ method: 'POST', path: '/oauth2/token' }, response!));
  return [
    ['failed logins before the address was blocked', blockedAfter ?? `not blocked after ${LOGIN_FAILURE_LIMIT + 5}`],
    ['blocked address, right secret / API call', `${rightSecret?.status ?? 'connection closed'} / ${apiCall?.status ?? 'connection closed'}`],
    ['another address meanwhile', bystander?.status ?? 'connection closed'],
    ['80 token requests at once from one address: 429s', limited.length],
  ];
}

// ---- cross-tenant ---------------------------------------------------------------------------------

interface Probe {
  /** The path with B's ids and the same path with ids that never existed. */
  theirs: string;
  never: string;
  /** A valid body for PUT. */
  body: unknown;
  /** Strings to write as <id> before comparing. */
  ids: string[];
}

async function crossTenant(suite: SuiteStack, a: SuiteTenant, b: SuiteTenant, tally: StatusTally, findings: Finding[]): Promise<Rows> {
  // the fixtures through the typed client; A's probes raw, since their answers are what is compared
  const B = await seedTenant(suite.client(b));
  const rmA = suite.client(a);
  await rmA.upsertEmployee('a-own', bodies.employee());
  await rmA.upsertTransportResource('a-own', bodies.transportResource());
  const counted = talliedClient(apiClient(suite, a), tally);

  const never = () => `never-${Math.random().toString(36).slice(2, 10)}`;
  const uuid = () => randomUUID();
  const probes: Probe[] = [];
  type Ids = Record<string, string>;
  const probe = (template: (ids: Ids) => string, theirs: Ids, fresh: Ids, body: unknown) =>
    probes.push({ theirs: template(theirs), never: template(fresh), body, ids: [...Object.values(theirs), ...Object.values(fresh)] });
  const e = { e: B.employee };
  probe(({ e }) => `/employee/${e}`, e, { e: never() }, bodies.employee());
  const subResources = [
    ['availability', B.availability, bodies.availability(500)],
    ['unavailability', B.unavailability, bodies.unavailability(500, 510)],
    ['shift-schedule', B.shiftSchedule, bodies.shiftSchedule()],
  ] as const;
  for (const [kind, id, body] of subResources) {
    probe(({ e, s }) => `/employee/${e}/${kind}/${s}`, { e: B.employee, s: id }, { e: never(), s: uuid() }, body);
    // under an employee A has: the sub-resource lookup itself must not see B's
    probe(({ s }) => `/employee/a-own/${kind}/${s}`, { s: id }, { s: uuid() }, body);
    probe(({ e }) => `/employee/${e}/${kind}`, e, { e: never() }, body);
  }
  probe(({ t }) => `/transport-resource/${t}`, { t: B.transportResource }, { t: never() }, bodies.transportResource());
  const theirTransport = { t: B.transportResource, u: B.transportUnavailability };
  const downtime = bodies.unavailability(500, 510);
  probe(({ t, u }) => `/transport-resource/${t}/unavailability/${u}`, theirTransport, { t: never(), u: uuid() }, downtime);
  probe(({ u }) => `/transport-resource/a-own/unavailability/${u}`, { u: B.transportUnavailability }, { u: uuid() }, downtime);
  probe(({ t }) => `/transport-resource/${t}/unavailability`, { t: B.transportResource }, { t: never() }, bodies.unavailability(500, 510));
  probe(({ h }) => `/home-base/${h}`, { h: B.homeBase }, { h: never() }, bodies.homeBase());
  probe(({ h }) => `/resource-overview/2026-01-05/${h}/forecasts`, { h: B.homeBase }, { h: never() }, bodies.forecast());
  probe(({ d }) => `/deployment/${d}`, { d: B.deployment }, { d: never() }, bodies.deployment('a-nobody', ['a-nobody'], 900));
  probe(({ e, x }) => `/means/${e}/actual/${x}`, { e: B.employee, x: B.actual }, { e: never(), x: never() }, bodies.actual(100));
  probe(({ e }) => `/means/${e}/actual`, e, { e: never() }, undefined);
  for (const id of B.availableEmployees) probe(({ x }) => `/available-employee/${x}`, { x: id }, { x: uuid() }, undefined);
  for (const id of B.combinations) probe(({ x }) => `/resource-combination/${x}`, { x: id }, { x: uuid() }, undefined);
  probe(({ e }) => `/available-employee?employee_id=${e}`, e, { e: never() }, undefined);
  probe(({ e }) => `/resource-combination?employee_id=${e}`, e, { e: never() }, undefined);

  // A PUT without If-Match creates A's own resource, so it comes after everything else, and in reverse
  // order: sub-resources before the employee or transport resource they would then be under.
  const phases: [string, Record<string, string> | undefined][] = [
    ['GET', undefined],
    ['DELETE', undefined],
    ['PUT', { 'if-match': 'W/"1"' }],
    ['PUT', undefined],
  ];
  let compared = 0;
  let different = 0;
  for (const [method, headers] of phases) {
    for (const { theirs, never: fresh, body, ids } of headers === undefined && method === 'PUT' ? [...probes].reverse() : probes) {
      if (method !== 'GET' && theirs.includes('?')) continue;
      const sent = method === 'PUT' ? body : undefined;
      const answerTheirs = await counted.call(method, theirs, sent, headers);
      const answerNever = await counted.call(method, fresh, sent, headers);
      compared += 1;
      const [left, right] = [normalized(answerTheirs, ids), normalized(answerNever, ids)];
      if (left !== right) {
        different += 1;
        const request = `${method}${headers === undefined ? '' : ' If-Match'} ${theirs} vs ${fresh}`;
        const detail = `${excerpt(left, 150)} ≠ ${excerpt(right, 150)}`;
        findings.push(finding("B's id answered unlike one that never existed", request, answerTheirs, detail));
      }
      if (answerTheirs.status >= 500 || leaksTenant(answerTheirs, B)) {
        findings.push(finding("tenant B's data in an answer to A", `${method} ${theirs}`, answerTheirs));
      }
    }
  }

  // B's cursors: refused as any forged cursor would be, and A's lists never show B's data
  let cursorsTried = 0;
  for (const [list, cursor] of Object.entries(B.cursors)) {
    const forged = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    const [withTheirs, withForged, plain] = [
      await counted.call('GET', `${list}${list.includes('?') ? '&' : '?'}limit=1&cursor=${cursor}`),
      await counted.call('GET', `${list}${list.includes('?') ? '&' : '?'}limit=1&cursor=${forged}`),
      await counted.call('GET', list),
    ];
    cursorsTried += 1;
    const [left, right] = [normalized(withTheirs, [cursor, forged]), normalized(withForged, [cursor, forged])];
    if (left !== right) {
      const detail = `${excerpt(left, 150)} ≠ ${excerpt(right, 150)}`;
      findings.push(finding("B's cursor answered unlike a forged one", `GET ${list}?cursor=<B's>`, withTheirs, detail));
    }
    for (const response of [withTheirs, plain]) {
      if (leaksTenant(response, B)) findings.push(finding("tenant B's data in A's list", `GET ${list}`, response));
    }
  }
  return [
    [
      "tenant B's resources probed (kinds)",
      `${probes.length} paths: employee, availability, unavailability, shift schedule, transport resource and its unavailability, ` +
        `home base, forecast, deployment, actual, ${B.availableEmployees.length} available employee(s), ` +
        `${B.combinations.length} combination(s)`,
    ],
    ["A's requests with B's ids compared with never-existing ids", compared],
    ['answers that differed', different],
    ["B's cursors tried by A", cursorsTried],
  ];
}

interface SeededTenant {
  employee: string;
  availability: string;
  unavailability: string;
  shiftSchedule: string;
  transportResource: string;
  transportUnavailability: string;
  homeBase: string;
  deployment: string;
  actual: string;
  availableEmployees: string[];
  combinations: string[];
  /** The next-page cursor of each list, by its path. */
  cursors: Record<string, string>;
  /** Strings only B's data holds: names and ids. */
  secrets: string[];
}

/** One of every kind, two of each listed kind (so that lists have a next page). */
async function seedTenant(rm: TypedClient): Promise<SeededTenant> {
  const tag = `b${Math.random().toString(36).slice(2, 8)}`;
  for (const n of [1, 2]) {
    await rm.upsertEmployee(`${tag}-emp-${n}`, bodies.employee(`${tag}-secret-name`));
    await rm.upsertTransportResource(`${tag}-tr-${n}`, bodies.transportResource(`${tag}-secret-ref`));
    await rm.upsertHomeBase(`${tag}-hb-${n}`, bodies.homeBase(`${tag}-secret-base`));
    await rm.upsertActual(`${tag}-emp-1`, `${tag}-act-${n}`, bodies.actual(n * 24));
  }
  const employee = `${tag}-emp-1`;
  const transportResource = `${tag}-tr-1`;
  const availability = (await rm.addEmployeeAvailability(employee, bodies.availability(24 * 400))).data.id;
  await rm.addEmployeeAvailability(employee, bodies.availability(24 * 401));
  const dayOff = bodies.unavailability(24 * 402, 24 * 403);
  const unavailability = (await rm.addEmployeeUnavailability(employee, dayOff)).data.id;
  const shiftSchedule = (await rm.addShiftSchedule(employee, bodies.shiftSchedule())).data.id;
  const transportUnavailability = (await rm.addTransportResourceUnavailability(transportResource, dayOff)).data.id;
  await rm.upsertForecast('2026-01-05', `${tag}-hb-1`, bodies.forecast());
  // the deployments service learns the employee and the transport resources from their events
  for (const n of [1, 2]) {
    const id = `${tag}-dep-${n}`;
    const body = bodies.deployment(`${tag}-emp-${n}`, [`${tag}-tr-${n}`], 24 * 400);
    const accepted = await eventually(() => rm.upsertExternalDeployment(id, body).then(() => true, () => false));
    if (!accepted) throw new Error(`tenant B: PUT /deployment/${id} never succeeded`);
  }
  // matching derives available employees (and combinations) from the availabilities
  const derived = async (list: () => Promise<{ id: string }[]>) => {
    let ids: string[] = [];
    await eventually(async () => {
      ids = (await list()).map(({ id }) => id);
      return ids.length >= 2;
    }, 15_000);
    return ids;
  };
  const availableEmployees = await derived(async () => (await rm.getPagedAvailableEmployees()).data.available_employees);
  const combinations = await derived(async () => (await rm.getPagedResourceCombinations()).data.resource_combinations);

  // the next-page cursor of each list, by the path A sends it to
  const firstPage = { query: { limit: 1 } };
  const lists = {
    '/employee': () => rm.getPagedEmployees(firstPage),
    '/transport-resource': () => rm.getPagedTransportResources(firstPage),
    '/home-base': () => rm.getPagedHomeBases(firstPage),
    '/deployment': () => rm.getPagedDeployments(firstPage),
    [`/means/${employee}/actual`]: () => rm.getPagedEmployeeActuals(employee, firstPage),
    '/available-employee': () => rm.getPagedAvailableEmployees(firstPage),
    '/resource-combination': () => rm.getPagedResourceCombinations(firstPage),
  };
  const cursors: Record<string, string> = {};
  for (const [list, read] of Object.entries(lists)) {
    const next = (await read()).data.cursors.next;
    if (next !== undefined) cursors[list] = next;
  }
  return {
    employee,
    availability,
    unavailability,
    shiftSchedule,
    transportResource,
    transportUnavailability,
    homeBase: `${tag}-hb-1`,
    deployment: `${tag}-dep-1`,
    actual: `${tag}-act-1`,
    availableEmployees,
    combinations,
    cursors,
    secrets: [`${tag}-secret`],
  };
}

/** Status, content type and body with the given ids written as <id>; request ids and dates left out. */
function normalized(response: RawResponse, ids: string[]): string {
  let body = response.body;
  for (const id of [...ids].sort((x, y) => y.length - x.length)) body = body.replaceAll(id, '<id>');
  body = body.replace(/"(request_id|instance|trace_id)":"[^"]*"/g, '"$1":"…"');
  return `${response.status} ${response.headers['content-type'] ?? ''} ${body}`;
}

function leaksTenant(response: RawResponse, tenant: SeededTenant): boolean {
  return tenant.secrets.some((secret) => response.body.includes(secret));
}
