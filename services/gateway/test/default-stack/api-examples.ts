import { beforeAll, describe, expect, it } from 'vitest';
import { createAjv } from '@rm/contracts';
import { OPERATION_EXAMPLES, type OperationExamples } from '../../src/openapi/examples.js';
import { BASE, signIn, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

interface Media {
  schema: object;
}
interface Reference {
  $ref: string;
}
interface Parameter {
  name: string;
  in: string;
  schema: object;
}
/** An operation of the served document, as far as examples concern it. */
interface Operation {
  method: string;
  path: string;
  operationId?: string;
  parameters?: (Parameter | Reference)[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> } | Reference>;
}

/** Every write, what its example names first (home base, then employee and transport resource, …), with the status it answers. */
const WRITES: [operationId: string, status: number][] = [
  ['upsertHomeBase', 201],
  ['upsertEmployee', 201],
  ['upsertTransportResource', 201],
  ['addShiftSchedule', 201],
  ['updateShiftSchedule', 201],
  ['addEmployeeAvailability', 201],
  ['updateEmployeeAvailability', 200],
  // the schedule's shift of the example's day is the availability's: nothing to create
  ['generateAvailabilities', 200],
  ['generateTenantAvailabilities', 200],
  ['addEmployeeUnavailability', 201],
  // the example's unavailability is the one its POST created: this replaces it
  ['upsertEmployeeUnavailability', 200],
  ['addTransportResourceUnavailability', 201],
  ['upsertTransportResourceUnavailability', 200],
  ['upsertExternalDeployment', 201],
  ['upsertActual', 201],
  ['upsertForecast', 201],
  ['upsertWebhookSubscription', 201],
];

/** Every delete, what refers to others first: a home base goes last. */
const DELETES = [
  'deleteActual',
  'deleteExternalDeployment',
  'deleteForecast',
  'deleteTransportResourceUnavailability',
  'deleteEmployeeUnavailability',
  'deleteEmployeeAvailability',
  'deleteEmployeeAvailabilities',
  'deleteShiftSchedule',
  'deleteTransportResource',
  'deleteEmployee',
  'deleteHomeBase',
  'deleteWebhookSubscription',
];

/**
 * Answered from what the asynchronous matching engine made of the writes, or from the deliveries the webhooks service has
 * tried so far: their examples are checked against the schemas only.
 */
const ASYNCHRONOUS_OUTPUT = new Set([
  'getPagedResourceCombinations',
  'getResourceCombination',
  'getPagedAvailableEmployees',
  'getAvailableEmployee',
  'getAvailableEmployeeCandidates',
  'getWebhookDeliveries',
]);

/** Streams, not JSON: their examples are in the document itself, and their own tests (change-feed.ts, import.ts) send them. */
const STREAMED = new Set(['getChanges', 'importWrites']);

/**
 * What a live answer and its example may differ in: versions grow with every write of the run, cursors are the stack's
 * own, and a webhook subscription's signing secret is its own.
 */
const UNCOMPARED = new Set(['version', 'etag', 'cursors', 'secret']);

let gateway: GatewayHarness;
let token: string;
let operations: Operation[];
/** The ids the stack generated, by the example ids they stand for; and back. */
const liveIds = new Map<string, string>();
const exampleIds = new Map<string, string>();

function operation(operationId: string): Operation {
  const found = operations.find((candidate) => candidate.operationId === operationId);
  if (found === undefined) throw new Error(`the document has no operation ${operationId}`);
  return found;
}

function examplesOf({ operationId }: Operation): OperationExamples {
  return OPERATION_EXAMPLES[operationId ?? ''] ?? {};
}

const isReference = (value: object): value is Reference => '$ref' in value;

function pathParameters({ parameters = [] }: Operation): Parameter[] {
  return parameters.filter((parameter): parameter is Parameter => !isReference(parameter) && parameter.in === 'path');
}

/** The 2xx answers that carry a body, with its media types. */
function successContents({ responses }: Operation): [status: string, content: Record<string, Media>][] {
  return Object.entries(responses).flatMap(([status, response]) =>
    status.startsWith('2') && !isReference(response) && response.content !== undefined ? [[status, response.content] as [string, Record<string, Media>]] : [],
  );
}

/** Sends the operation with its example's path and query parameters (generated ids as the stack generated them) and request body. */
async function send(operation: Operation): Promise<{ status: number; body: unknown; text: string }> {
  const { method, path } = operation;
  const { parameters = {}, query, request } = examplesOf(operation);
  const live = (example: string) => liveIds.get(example) ?? example;
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(live(parameters[name] ?? ''))) + (query === undefined ? '' : `?${new URLSearchParams(query)}`);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (request !== undefined) headers['Content-Type'] = 'application/json';
  const response = await gateway.fetch(`${BASE}${url}`, { method: method.toUpperCase(), headers, ...(request === undefined ? {} : { body: JSON.stringify(request) }) });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json') === true;
  return { status: response.status, body: json ? JSON.parse(text) : text, text };
}

/** From now on the id the stack generated for a create stands in for the id of its example. */
function recordGeneratedId(example: unknown, created: unknown): void {
  const exampleId = (example as { id?: unknown } | undefined)?.id;
  const liveId = (created as { id?: unknown }).id;
  if (typeof exampleId !== 'string' || typeof liveId !== 'string') throw new Error(`a create answered without an id: ${JSON.stringify(created)}`);
  liveIds.set(exampleId, liveId);
  exampleIds.set(liveId, exampleId);
}

/** A body as an example shows it: generated ids as the example's, without what UNCOMPARED names. */
function comparable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body, (key, value: unknown) => (UNCOMPARED.has(key) ? undefined : typeof value === 'string' ? (exampleIds.get(value) ?? value) : value)));
}

function expectExampleAnswer(operationId: string, { status, body }: { status: number; body: unknown }): void {
  const example = OPERATION_EXAMPLES[operationId]?.responses?.[String(status) as '200' | '201'];
  expect.soft(example, `${operationId} has no example of its ${status} answer`).toBeDefined();
  if (example !== undefined) expect.soft(comparable(body), `${operationId} answered ${status} other than its example`).toEqual(comparable(example));
}

/** Every operation's examples, checked against the served schemas and sent, as they are, to the live API. */
export function describeApiExamples(stack: () => Stack): void {
  describe('the examples of the API document', () => {
    beforeAll(async () => {
      gateway = stack().gateway;
      ({ token } = await signIn(gateway));
      const document = (await (await gateway.fetch(`${BASE}/openapi.json`)).json()) as { paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>> };
      operations = Object.entries(document.paths)
        .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ ...operation, method, path })))
        .filter(({ operationId }) => !STREAMED.has(operationId ?? ''));
    });

    it('cover every operation: each path parameter, the request body and every 2xx answer with a body', () => {
      expect(operations.filter(({ operationId }) => operationId === undefined).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
      const described = Object.fromEntries(
        operations.map((operation) => [
          operation.operationId,
          {
            parameters: pathParameters(operation).map(({ name }) => name).sort(),
            request: operation.requestBody !== undefined,
            responses: successContents(operation).map(([status]) => status).sort(),
          },
        ]),
      );
      const exemplified = Object.fromEntries(
        Object.entries(OPERATION_EXAMPLES).map(([operationId, { parameters = {}, request, responses = {} }]) => [
          operationId,
          { parameters: Object.keys(parameters).sort(), request: request !== undefined, responses: Object.keys(responses).sort() },
        ]),
      );
      expect(exemplified).toEqual(described);
    });

    it('are valid against the schemas of the served document', () => {
      // the services' own ajv, formats included (duration as the API reads it); it applies defaults, hence the copies
      const ajv = createAjv({ coerceTypes: false });
      const invalid: string[] = [];
      const check = (schema: object, example: unknown, name: string) => {
        const validate = ajv.compile(schema);
        if (validate(structuredClone(example))) return;
        for (const { instancePath, message, params } of validate.errors ?? []) invalid.push(`${name} ${instancePath || '/'} ${message} ${JSON.stringify(params)}`);
      };
      for (const operation of operations) {
        const { parameters = {}, request, responses = {} } = examplesOf(operation);
        const name = operation.operationId ?? `${operation.method} ${operation.path}`;
        for (const parameter of pathParameters(operation)) check(parameter.schema, parameters[parameter.name], `${name} ${parameter.name}`);
        const requestSchema = operation.requestBody?.content['application/json']?.schema;
        if (requestSchema !== undefined) check(requestSchema, request, `${name} request`);
        for (const [status, content] of successContents(operation)) {
          for (const [type, { schema }] of Object.entries(content)) check(schema, responses[status as '200' | '201'], `${name} ${status} ${type}`);
        }
      }
      expect(invalid).toEqual([]);
    });

    it('send every write and every delete of the document to the live API below', () => {
      const writes = operations.filter(({ requestBody }) => requestBody !== undefined).map(({ operationId }) => operationId);
      expect(WRITES.map(([operationId]) => operationId).sort()).toEqual(writes.sort());
      const deletes = operations.filter(({ method }) => method === 'delete').map(({ operationId }) => operationId);
      expect([...DELETES].sort()).toEqual(deletes.sort());
    });

    it.each(WRITES)('are accepted by the live API: %s answers %i with its example', async (operationId, status) => {
      const write = operation(operationId);
      const answer = await send(write);
      expect(answer.status, `${operationId}: ${answer.text}`).toBe(status);
      if (write.method === 'post' && status === 201) recordGeneratedId(OPERATION_EXAMPLES[operationId]?.responses?.['201'], answer.body);
      expectExampleAnswer(operationId, answer);
    });

    it('are what the live API answers to every read after those writes', async () => {
      const reads = operations.filter(({ method, operationId }) => method === 'get' && !ASYNCHRONOUS_OUTPUT.has(operationId ?? ''));
      for (const read of reads) {
        const answer = await send(read);
        expect.soft(answer.status, `${read.operationId}: ${answer.text}`).toBe(200);
        if (answer.status === 200) expectExampleAnswer(read.operationId!, answer);
      }
    });

    it.each(DELETES)('are accepted by the live API: %s answers 204', async (operationId) => {
      const answer = await send(operation(operationId));
      expect(answer.status, `${operationId}: ${answer.text}`).toBe(204);
    });
  });
}
