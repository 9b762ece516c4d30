// Hostile input: requests generated from the gateway's OpenAPI document for every operation, valid
// ones and mutations of them (bodies, content types, query strings, path ids, headers, methods), sent
// through the gateway; every answer is checked (lib/checks.ts), and the stack must still answer after.
import { checkResponse } from '../lib/checks.ts';
import { bodies } from '../lib/fixtures.ts';
import { jsonRequest, send, type RawRequest } from '../lib/http.ts';
import { StatusTally, type Finding, type ScenarioReport } from '../lib/report.ts';
import { createRandom, sampleValue, type Random, type Schema } from '../lib/schema-sample.ts';
import { BASE_PATH, type SuiteStack } from '../lib/suite-stack.ts';
import type { Size } from '../lib/report.ts';

const REQUESTS: Record<Size, number> = { full: 10_500, short: 400 };
/** Requests in flight; the short version is gentler on a PostgreSQL that other test runs share (FerretDB opens a connection per client). */
const IN_FLIGHT: Record<Size, number> = { full: 16, short: 8 };
const SEED = 13;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}

interface Operation {
  method: string;
  template: string;
  parameters: Parameter[];
  body?: Schema;
}

/** A request before it is written: mutations change its parts. */
interface Draft {
  method: string;
  segments: string[];
  query: [string, string][];
  headers: Record<string, string>;
  body?: unknown;
  /** The body as sent, when a mutation wrote it by hand. */
  raw?: string;
  note: string;
}

type Mutation = (draft: Draft, random: Random) => void;

export async function hostileInput(suite: SuiteStack, size: Size): Promise<ScenarioReport> {
  const started = performance.now();
  const seeding = createRandom(SEED);
  const tenant = await suite.newTenant('hostile');
  const token = () => suite.token(tenant);
  const origin = suite.stack.gateway;
  const internalHosts = suite.stack.services.filter((name) => name !== 'gateway').map((name) => new URL(suite.stack.origins[name]).host);

  const document = await send(origin, jsonRequest('GET', `${BASE_PATH}/openapi.json`, await token()));
  if (document?.status !== 200) throw new Error(`the OpenAPI document: ${document?.status} ${document?.body.slice(0, 200)}`);
  const operations = readOperations(JSON.parse(document.body) as OpenApiDocument);

  // Ids that exist, so that generated requests also reach sub-resources; 201s add theirs (Location).
  const known = new Map<string, string[]>();
  const remember = (location: string | undefined) => {
    if (!URL.canParse(location ?? '/', origin)) return false;
    const segments = new URL(location ?? '/', origin).pathname.slice(BASE_PATH.length).split('/').filter(Boolean);
    for (let index = 0; index + 1 < segments.length; index += 2) {
      const pool = known.get(segments[index]!) ?? [];
      if (pool.length < 20 && !pool.includes(segments[index + 1]!)) pool.push(segments[index + 1]!);
      known.set(segments[index]!, pool);
    }
    return true;
  };
  // Two of each top-level resource (employee, transport resource, home base) from sampled bodies.
  for (const operation of operations.filter(({ method, template }) => method === 'PUT' && /^[^{]*\/\{[^}]+\}$/.test(template))) {
    for (const id of ['one', 'two']) {
      const path = operation.template.replace(/\{[^}]+\}$/, `seed-${id}`);
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const seeded = await send(origin, jsonRequest('PUT', path, await token(), sampleValue(operation.body ?? {}, seeding)));
        if (seeded !== undefined && seeded.status < 300) break;
      }
      remember(path);
      if (path.includes('/employee/')) remember(path.replace('/employee/', '/means/'));
    }
  }

  const tally = new StatusTally();
  const findings: Finding[] = [];
  const mutationCounts = new Map<string, number>();
  let unsendable = 0;
  const total = REQUESTS[size];
  let next = 0;

  const worker = async () => {
    while (next < total) {
      const index = next++;
      if (index % 1_000 === 0 && size === 'full') console.error(`${new Date().toISOString()} hostile-input: ${index} requests sent`);
      // a source per request, so that request n is the same in every run whatever the interleaving
      const random = createRandom(SEED * 1_000_003 + index);
      const operation = operations[index % operations.length]!;
      const draft = validDraft(operation, random, known, await token());
      const mutation = index % 10 === 0 ? undefined : random.pick(applicableMutations(operation));
      mutation?.(draft, random);
      const kind = draft.note.split(':')[0] || 'valid';
      mutationCounts.set(kind, (mutationCounts.get(kind) ?? 0) + 1);
      const request = write(draft);
      let response;
      try {
        response = await send(origin, request);
      } catch {
        unsendable += 1; // undici refused to write it (a character it does not send): not a request
        continue;
      }
      tally.record(response?.status);
      if (response === undefined) {
        const described = `${request.method} ${request.path} [${draft.note}]`;
        findings.push({ rule: 'connection closed without an answer', request: described, excerpt: '' });
        continue;
      }
      if (response.status === 201 && !remember(response.headers.location)) {
        const described = `${request.method} ${request.path} [${draft.note}]`;
        findings.push({ rule: 'Location is not a URL', request: described, status: 201, excerpt: response.headers.location ?? '' });
      }
      findings.push(...checkResponse(request, response, { note: draft.note, internalHosts }));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT[size] }, worker));

  // The stack answers afterwards: every service ready, a valid write and read through the gateway.
  const recovery = performance.now();
  const notReady: string[] = [];
  for (const name of suite.stack.services) {
    const ready = await send(suite.stack.origins[name], { method: 'GET', path: '/readyz' });
    if (ready?.status !== 200) notReady.push(`${name}: ${ready?.status ?? 'no answer'}`);
  }
  // the typed client, without retries: the stack must answer at once, not after a Retry-After
  const rm = suite.client(tenant, { retries: 0 });
  const failed = await rm.upsertEmployee('after-hostile', bodies.employee()).then(() => rm.getEmployee('after-hostile')).then(
    () => undefined,
    (error: Error) => error.message,
  );
  const answersAfter = notReady.length === 0 && failed === undefined;
  if (!answersAfter) {
    findings.push({
      rule: 'stack does not answer afterwards',
      request: 'GET /readyz of each service, PUT and GET /employee/after-hostile',
      excerpt: [...notReady, failed ?? 'PUT and GET answered'].join(', '),
    });
  }
  findings.push(...suite.exits.map((exit) => ({ rule: 'service exited', request: '', excerpt: exit })));

  return {
    name: 'hostile-input',
    did:
      `${total.toLocaleString('en')} requests through the gateway, round-robin over ${operations.length} operations (those of ` +
      `its OpenAPI document, the token endpoint and three unknown paths), ${IN_FLIGHT[size]} in flight: one in ten valid ` +
      '(from the schemas), the others with one mutation each (seed 13). Rules: no 5xx; every 4xx but 401 problem+json with ' +
      'its title; nothing in a body or header from lib/checks.ts LEAK_PATTERNS; every service ready and a write and read ' +
      'working afterwards.',
    rows: [
      ...tally.rows(),
      ['operations (with token endpoint and unknown paths)', operations.length],
      ['requests by mutation', [...mutationCounts].sort(([x], [y]) => x.localeCompare(y)).map(([name, n]) => `${name}: ${n}`).join(', ')],
      ['requests undici would not write (not sent)', unsendable],
      ['every service ready and a write + read working afterwards', answersAfter ? 'yes' : 'no'],
      ['time to answer again after the run', `${((performance.now() - recovery) / 1000).toFixed(2)} s`],
    ],
    findings,
    seconds: (performance.now() - started) / 1000,
  };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
}

/** Every operation of the document, the token endpoint, and paths nobody serves. */
function readOperations(document: OpenApiDocument): Operation[] {
  const operations = Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template: `${BASE_PATH}${template}`,
      parameters: operation.parameters ?? [],
      ...(operation.requestBody === undefined ? {} : { body: operation.requestBody.content['application/json']?.schema ?? {} }),
    })),
  );
  const unknown = (template: string, method = 'GET'): Operation => ({ method, template, parameters: [] });
  return [
    ...operations,
    { method: 'POST', template: '/oauth2/token', parameters: [], body: TOKEN_FORM },
    unknown(`${BASE_PATH}/nothing-here`),
    unknown(`${BASE_PATH}/employee/emp-1/availability/not-a-uuid/extra`, 'PUT'),
    unknown(`${BASE_PATH}`),
  ];
}

/** The token form, as a schema of its fields; write() sends it url-encoded. */
const TOKEN_FORM: Schema = {
  type: 'object',
  required: ['grant_type', 'client_id', 'client_secret'],
  properties: { grant_type: { const: 'client_credentials' }, client_id: { type: 'string' }, client_secret: { type: 'string' } },
};

function validDraft(operation: Operation, random: Random, known: Map<string, string[]>, token: string): Draft {
  const parts = operation.template.split('/');
  const segments = parts.map((part, index) => {
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    if (name === undefined) return part;
    const pool = known.get(parts[index - 1] ?? '') ?? [];
    if (pool.length > 0 && random.chance(0.7)) return random.pick(pool);
    const schema = operation.parameters.find((parameter) => parameter.name === name)?.schema ?? {};
    return encodeURIComponent(String(sampleValue(schema, random)));
  });
  const query = operation.parameters
    .filter((parameter) => parameter.in === 'query' && random.chance(0.3))
    .map((parameter): [string, string] => [parameter.name, String(sampleValue(parameter.schema, random))]);
  const tokenEndpoint = operation.template === '/oauth2/token';
  const headers: Record<string, string> = tokenEndpoint
    ? // each token request speaks for an address of its own (the gateway trusts 127.0.0.1 as proxy): no block
      { 'x-forwarded-for': `10.${random.int(0, 255)}.${random.int(0, 255)}.${random.int(1, 254)}` }
    : { authorization: `Bearer ${token}` };
  if ((operation.method === 'PUT' || operation.method === 'DELETE') && random.chance(0.2)) headers['if-match'] = `W/"${random.int(1, 3)}"`;
  // a few keys, so that creates are replayed, and refused when a key comes back with another body
  if (operation.method === 'POST' && !tokenEndpoint && random.chance(0.2)) headers['idempotency-key'] = `key-${random.int(1, 5)}`;
  if (operation.body === undefined) return { method: operation.method, segments, query, headers, note: '' };
  headers['content-type'] = tokenEndpoint ? 'application/x-www-form-urlencoded' : 'application/json';
  return { method: operation.method, segments, query, headers, body: sampleValue(operation.body, random), note: '' };
}

function write(draft: Draft): RawRequest {
  const query = draft.query.map(([name, value]) => `${name}=${value}`).join('&');
  const path = `${draft.segments.join('/')}${query === '' ? '' : `?${query}`}`;
  const form = draft.headers['content-type'] === 'application/x-www-form-urlencoded' && isRecord(draft.body);
  const formFields = (fields: Record<string, unknown>) =>
    Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)]);
  const body =
    draft.raw ??
    (draft.body === undefined
      ? undefined
      : form
        ? new URLSearchParams(formFields(draft.body as Record<string, unknown>)).toString()
        : JSON.stringify(draft.body));
  return { method: draft.method, path, headers: draft.headers, ...(body === undefined ? {} : { body }) };
}

// ---- mutations ------------------------------------------------------------------------------------

function applicableMutations(operation: Operation): Mutation[] {
  const withParameters = operation.parameters.some((parameter) => parameter.in === 'path') ? [oddPathId, oddPathId] : [];
  const always = [oddQuery, oddHeader, oddIfMatch, otherMethod, oddPathShape, ...withParameters];
  return operation.body === undefined ? always : [...always, ...BODY_MUTATIONS, ...BODY_MUTATIONS];
}

/** Each JSON value in the body with where it is. */
function nodes(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; value: unknown }[] {
  const children = Array.isArray(value)
    ? value.flatMap((item, index) => nodes(item, [...path, index]))
    : isRecord(value)
      ? Object.entries(value).flatMap(([key, item]) => nodes(item, [...path, key]))
      : [];
  return [{ path, value }, ...children];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Replaces the value at `path` (the root when empty), as an own property even for `__proto__`. */
function setAt(draft: Draft, path: (string | number)[], value: unknown): void {
  if (path.length === 0) {
    draft.body = value;
    return;
  }
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], draft.body);
  Object.defineProperty(parent, path.at(-1)!, { value, enumerable: true, configurable: true, writable: true });
}

function pickNode(draft: Draft, random: Random, test: (value: unknown) => boolean = () => true) {
  const candidates = nodes(draft.body).filter(({ value }) => test(value));
  return candidates.length === 0 ? undefined : random.pick(candidates);
}

const where = (path: (string | number)[]) => (path.length === 0 ? 'body' : path.join('.'));

const EXTRA_KEYS = [
  ...['unexpected', '$where', 'a.b', '$gt', '__proto__', 'constructor', '', 'x'.repeat(1_000)],
  // fields the services set themselves
  ...['version', 'id', '_id', 'tenant'],
];
const WRONG_TYPES: unknown[] = [123, -1, 'text', true, false, [], {}, 1.5, [1, 2], { a: 1 }];
const STRANGE_STRINGS = [
  '😀'.repeat(50),
  'Z̤̈́̈́̈́͂a̮͂l̟̈́g͇o',
  '\u202Eevil',
  '\u0000',
  '\uD800',
  'ｆｕｌｌｗｉｄｔｈ',
  '\t\n\r',
  '<script>alert(1)</script>',
  "'; DROP TABLE x; --",
  '{"$gt":""}',
  '$where',
  '../../etc/passwd',
  '%00',
  '\u00a0',
  ' ',
  '',
];
const BAD_FORMATS = [
  '2026-02-30T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '0000-00-00T00:00:00Z',
  '10000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-01-01',
  '2026-01-01T25:00:00Z',
  '2026-01-01T00:00:00',
  '2026-01-01T00:00:00+99:99',
  'yesterday',
  'P1Y',
  'P1M',
  'PT',
  'P',
  '-PT1H',
  'PT0.5S',
  'P1W2D',
  'PT99999999999999999999H',
  'P999999999D',
  'PT-1H',
  '24:00',
  '23:60',
  '9:00',
  'monday',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'nl',
  '1e999',
];
const BAD_NUMBERS = [-1, -0, 0, 1e308, -1e308, 1.5, 2 ** 53 + 1, 1e-300, '1', 999_999_999_999];
const RAW_BODIES = [
  '',
  '{',
  '{"a":',
  '{"a":1,}',
  'null',
  '[]',
  '"text"',
  '123',
  'true',
  '{"a":1}{"b":2}',
  '\uFEFF{}',
  "{'a':1}",
  'NaN',
  '{"a":NaN}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `${'['.repeat(100_000)}`,
  `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  '{"earliest_start":"2026-01-01T00:00:00Z","earliest_start":"x"}',
  '\u0000\u0001\u0002',
];
const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/jsonx',
  'APPLICATION/JSON',
  '*/*',
  'application/problem+json',
  'application/merge-patch+json',
  'application/json; boundary=',
];

const BODY_MUTATIONS: Mutation[] = [
  function missingField(draft, random) {
    const node = pickNode(draft, random, (value) => isRecord(value) && Object.keys(value).length > 0);
    if (node === undefined) return void (draft.note = 'missing: body');
    const key = random.pick(Object.keys(node.value as object));
    delete (node.value as Record<string, unknown>)[key];
    draft.note = `missing: ${where([...node.path, key])}`;
  },
  function wrongType(draft, random) {
    const node = pickNode(draft, random)!;
    const sameType = (each: unknown) => typeof each === typeof node.value && Array.isArray(each) === Array.isArray(node.value);
    const value = random.pick(WRONG_TYPES.filter((each) => !sameType(each)));
    setAt(draft, node.path, value);
    draft.note = `wrong type: ${where(node.path)}=${JSON.stringify(value)}`;
  },
  function nullValue(draft, random) {
    const node = pickNode(draft, random)!;
    setAt(draft, node.path, null);
    draft.note = `null: ${where(node.path)}`;
  },
  function extraField(draft, random) {
    const node = pickNode(draft, random, isRecord) ?? { path: [], value: (draft.body = {}) };
    const key = random.pick(EXTRA_KEYS);
    Object.defineProperty(node.value, key, { value: random.pick(WRONG_TYPES), enumerable: true, configurable: true, writable: true });
    draft.note = `extra field: ${where(node.path)}.${key.slice(0, 20)}`;
  },
  function hugeString(draft, random) {
    const node = pickNode(draft, random, (value) => typeof value === 'string') ?? pickNode(draft, random)!;
    const length = random.pick([10_000, 100_000, 600_000, 1_200_000]);
    setAt(draft, node.path, 'x'.repeat(length));
    draft.note = `huge string: ${where(node.path)} of ${length}`;
  },
  function strangeString(draft, random) {
    const node = pickNode(draft, random, (value) => typeof value === 'string') ?? pickNode(draft, random)!;
    const value = random.pick(STRANGE_STRINGS);
    setAt(draft, node.path, value);
    draft.note = `unicode: ${where(node.path)}=${JSON.stringify(value).slice(0, 20)}`;
  },
  function badFormat(draft, random) {
    const node = pickNode(draft, random, (value) => typeof value === 'string') ?? pickNode(draft, random)!;
    const value = random.pick(BAD_FORMATS);
    setAt(draft, node.path, value);
    draft.note = `bad format: ${where(node.path)}=${value}`;
  },
  function badNumber(draft, random) {
    const node = pickNode(draft, random, (value) => typeof value === 'number') ?? pickNode(draft, random)!;
    const value = random.pick(BAD_NUMBERS);
    setAt(draft, node.path, value);
    draft.note = `bad number: ${where(node.path)}=${String(value)}`;
  },
  function hugeNumberLiteral(draft) {
    draft.raw = JSON.stringify(draft.body).replace(/(:)(-?\d+(\.\d+)?)/, '$11e999');
    draft.note = 'bad number: a literal 1e999';
  },
  function badJson(draft, random) {
    draft.raw = random.pick(RAW_BODIES);
    draft.note = `bad JSON: ${JSON.stringify(draft.raw.slice(0, 20))}${draft.raw.length > 20 ? `… (${draft.raw.length})` : ''}`;
  },
  function contentType(draft, random) {
    if (random.chance(0.2)) {
      delete draft.headers['content-type'];
      draft.note = 'content type: none';
    } else {
      draft.headers['content-type'] = random.pick(CONTENT_TYPES);
      draft.note = `content type: ${draft.headers['content-type']}`;
    }
  },
  function encodedBody(draft, random) {
    draft.headers['content-encoding'] = random.pick(['gzip', 'br', 'deflate', 'identity, gzip', 'x-unknown']);
    draft.note = `content encoding: ${draft.headers['content-encoding']} on a plain body`;
  },
];

const LIMITS = ['-1', '0', 'abc', '1e3', '1001', '99999999999999999999', '1.5', '%201', '0x10', '', 'null', '[]'];
const CURSORS = ['abc', 'a.b', 'a'.repeat(3_000), 'eyJhZnRlciI6IngifQ.AAAA', 'eyJhZnRlciI6IngifQ.', '%00', '..', '.', 'a.b.c', '%E0%A4%A'];
const TIMES = ['x', '2026-02-30T00:00:00Z', '2026-01-01', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '%2B', '2026-01-01T00:00%2B01'];
const ODD_QUERY_NAMES = ['foo', '__proto__[x]', 'limit[]', 'cursor[a]', '%', '%zz', '', '&&', 'a'.repeat(5_000)];

function oddQuery(draft: Draft, random: Random): void {
  const choice = random.int(0, 6);
  const choices: [string, string][][] = [
    [['limit', '1'], ['limit', '2']],
    [['limit', random.pick(LIMITS)]],
    [['cursor', random.pick(CURSORS)]],
    [['from', random.pick(TIMES)], ['until', random.pick(TIMES)]],
    [['from', '2026-06-01T00:00:00Z'], ['until', '2026-01-01T00:00:00Z']],
    [[random.pick(ODD_QUERY_NAMES), random.pick(['1', '', '%', 'x'.repeat(3_000)])]],
    [['employee_id', random.pick(['', '%00', 'x'.repeat(600), 'a%2Fb'])], ['transport_resource_id', '%2e%2e']],
  ];
  const pairs = choices[choice]!;
  draft.query.push(...pairs);
  draft.note = `query: ${pairs.map(([name, value]) => `${name.slice(0, 12)}=${value.slice(0, 24)}`).join('&')}`;
}

const ODD_IDS = [
  '%00',
  '%2F',
  '..',
  '.',
  '%2e%2e',
  'a%20b',
  '%F0%9F%98%80',
  'x'.repeat(513),
  'x'.repeat(10_000),
  '%',
  '%zz',
  '~',
  '%27',
  '%22',
  '%3Cscript%3E',
  '%C0%AF',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '$where',
  'a.b',
  '-1',
  '0',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF',
  '%E2%80%AE',
  '%EF%BB%BF',
];

function oddPathId(draft: Draft, random: Random): void {
  const templateIndexes = draft.segments.map((_, index) => index).filter((index) => index > BASE_PATH.split('/').length && index % 2 === 0);
  const index = templateIndexes.length === 0 ? draft.segments.length - 1 : random.pick(templateIndexes);
  const value = random.pick(ODD_IDS);
  draft.segments[index] = value;
  draft.note = `path id: ${value.slice(0, 30)}${value.length > 30 ? `… (${value.length})` : ''}`;
}

function oddPathShape(draft: Draft, random: Random): void {
  const choice = random.int(0, 4);
  if (choice === 0) draft.segments.push('');
  else if (choice === 1) draft.segments.splice(2, 0, '');
  else if (choice === 2) draft.segments.push('..', '..');
  else if (choice === 3) draft.segments.push('%2e%2e', 'admin');
  else draft.segments[draft.segments.length - 1] = draft.segments.at(-1)!.toUpperCase();
  draft.note = `path shape: ${['trailing slash', 'double slash', '/../..', 'encoded dot segments', 'upper case'][choice]}`;
}

const ODD_ETAGS = ['W/"abc"', '"1"', '*', 'W/"-1"', 'W/"99999999999999999999"', 'W/"1", W/"2"', '', 'W/', 'x'.repeat(5_000), 'W/"1.5"'];

function oddIfMatch(draft: Draft, random: Random): void {
  const value = random.pick(ODD_ETAGS);
  draft.headers[random.chance(0.8) ? 'if-match' : 'if-none-match'] = value;
  draft.note = `if-match: ${value.slice(0, 24)}`;
}

/** Not `Content-Length` or `Transfer-Encoding`: undici's promise never settles when they are forged (framing needs a raw socket). */
function oddHeader(draft: Draft, random: Random): void {
  const [name, values] = random.pick<[string, string[]]>([
    ['prefer', ['return=minimal', 'return=bogus', 'return=', 'x'.repeat(5_000), 'return=minimal, return=representation', 'wait=-1']],
    ['accept', ['application/xml', 'text/html', '', 'application/problem+json;q=0', '*/*;q=abc']],
    ['x-forwarded-for', ['not-an-ip', '999.999.999.999', '::1, 1.2.3.4', 'x'.repeat(5_000), '', ', ,']],
    ['x-forwarded-host', ['evil.example', 'x'.repeat(5_000), '[::1]:99999', '', 'a@b', 'host:notaport']],
    ['x-forwarded-proto', ['gopher', 'https, http', '', 'javascript']],
    ['x-forwarded-prefix', ['/../x', 'x'.repeat(5_000), 'no-slash', '//evil.example']],
    ['x-request-id', ['x'.repeat(5_000), '', '../../x', '{"$gt":""}']],
    ['idempotency-key', ['', 'x'.repeat(256), 'two words', '{"$gt":""}', 'x'.repeat(5_000)]],
    ['authorization', ['Bearer', 'Bearer ', 'Basic YTpi', 'Bearer a.b.c', 'x'.repeat(10_000), 'Bearer eyJhbGciOiJub25lIn0.e30.']],
    ['host', ['', 'evil.example', 'x'.repeat(2_000)]],
  ]);
  const value = random.pick(values);
  draft.headers[name] = value;
  draft.note = `header: ${name}=${value.slice(0, 24)}`;
}

function otherMethod(draft: Draft, random: Random): void {
  draft.method = random.pick(['PATCH', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND']);
  draft.note = `method: ${draft.method}`;
}
