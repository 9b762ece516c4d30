import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, TAGS } from '../../src/openapi/operations.js';
import { BASE } from '../helpers.js';
import type { Stack } from '../stack.js';

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  'x-experimental'?: boolean;
  parameters?: ({ name: string; in: string } | { $ref: string })[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> }; example?: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { example?: unknown }>; headers?: Record<string, unknown> }>;
}

interface ApiDocument {
  openapi: string;
  info: { contact?: unknown; license?: unknown };
  servers: { url: string }[];
  security: unknown;
  tags: { name: string; description: string }[];
  components: { securitySchemes: Record<string, unknown>; responses: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

/** @rm/client generates its types and methods from this copy at build time. */
const CLIENT_DOCUMENT = join(import.meta.dirname, '../../../../packages/client/openapi.json');

let document: ApiDocument;

const operations = () => Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

/** The API document the gateway serves, built from its owners' documents and the catalogue of operations. */
export function describeApiDocument(stack: () => Stack): void {
  describe('the API document', () => {
    beforeAll(async () => {
      // as a caller behind a proxy sees it: a public host, not localhost
      const response = await stack().gateway.fetch(`${BASE}/openapi.json`, { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'rm.haulage.test' } });
      expect(response.status).toBe(200);
      document = (await response.json()) as ApiDocument;
    });

    it('is one OpenAPI 3.1 document of every owner, without a token, naming the token URL', () => {
      expect(document.openapi).toBe('3.1.0');
      expect(document.servers).toEqual([{ url: `https://rm.haulage.test${BASE}` }]);
      expect(document.security).toEqual([{ clientCredentials: [] }]);
      expect(document.components.securitySchemes.clientCredentials).toEqual({
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://rm.haulage.test/oauth2/token', scopes: {} } },
      });
      expect(document.info).toMatchObject({ contact: expect.any(Object), license: expect.any(Object) });
      // the routes with the contract schemas they validate with
      const put = document.paths['/employee/{employee_id}']!.put!;
      expect(put.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'employee_id', in: 'path' })]));
      expect(put.requestBody!.content['application/json']!.schema.properties).toHaveProperty('start_location');
      // a create names its optional Idempotency-Key, and the 422 of a key reused with another body
      const create = document.paths['/employee/{employee_id}/availability']!.post!;
      expect(create.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'idempotency-key', in: 'header', required: false })]));
      expect(create.responses['422']).toEqual({ $ref: '#/components/responses/UnprocessableContent' });
      expect(document.paths['/home-base/{home_base_id}']!.delete!.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
      // service-to-service routes are nobody's business outside
      expect(Object.keys(document.paths).filter((path) => path.startsWith('/internal'))).toEqual([]);
    });

    it('has every operation of the catalogue and no other, each with its id, tag, summary and description', () => {
      const listed = operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`);
      expect(listed.sort()).toEqual(Object.keys(OPERATIONS).sort());
      expect(listed).toHaveLength(60);
      const tagNames = new Set(document.tags.map((tag) => tag.name));
      for (const { path, method, operation } of operations()) {
        const text = OPERATIONS[`${method.toUpperCase()} ${path}`]!;
        expect(operation, `${method} ${path}`).toMatchObject({ operationId: text.operationId, tags: [text.tag], summary: text.summary, description: text.description });
        expect(tagNames.has(text.tag)).toBe(true);
      }
      const ids = operations().map(({ operation }) => operation.operationId);
      expect(new Set(ids).size).toBe(ids.length);
      // the original service's names, which generated clients rely on
      expect(ids).toEqual(expect.arrayContaining(['ping', 'getEmployee', 'upsertTransportResource', 'getPagedEmployeeActuals', 'updateEmployeeAvailability', 'deleteEmployeeUnavailability']));
      expect(document.tags.map((tag) => tag.name)).toEqual(TAGS.map((tag) => tag.name));
      // the spec's experimental parts, and our extensions, are marked
      expect(document.paths['/deployment/{id}']!.put!['x-experimental']).toBe(true);
      expect(document.paths['/resource-combination']!.get!['x-experimental']).toBe(true);
      expect(document.paths['/employee/{employee_id}']!.put!['x-experimental']).toBeUndefined();
    });

    it('says what every operation answers: the error answers with their problem examples, and the conventions', () => {
      for (const { path, method, operation } of operations()) {
        const where = `${method} ${path}`;
        for (const status of ['401', '429', '503']) expect(operation.responses[status], where).toHaveProperty('$ref');
        if (operation.requestBody !== undefined) for (const status of ['413', '415']) expect(operation.responses[status], where).toHaveProperty('$ref');
        expect(Object.keys(operation.responses).some((status) => status.startsWith('2')), where).toBe(true);
        if (method === 'put' || method === 'post') expect(operation.parameters, where).toContainEqual({ $ref: '#/components/parameters/Prefer' });
        // a read is never conditional nor in conflict; a conditional write may have a malformed If-Match
        if (method === 'get') expect(Object.keys(operation.responses).filter((status) => status === '409' || status === '412'), where).toEqual([]);
        if (operation.parameters?.some((parameter) => '$ref' in parameter && parameter.$ref.endsWith('/IfMatch'))) expect(operation.responses['400'], where).toBeDefined();
      }
      const upsert = document.paths['/transport-resource/{transport_resource_id}']!.put!;
      expect(upsert.parameters).toContainEqual({ $ref: '#/components/parameters/IfMatch' });
      expect(Object.keys(upsert.responses['201']!.headers!)).toEqual(['ETag', 'Location', 'Preference-Applied']);
      expect(upsert.responses['204']).toBeDefined();
      expect(document.paths['/deployment/{id}']!.get!.responses['200']!.headers).toEqual({ ETag: { $ref: '#/components/headers/ETag' } });
      expect(document.paths['/deployment']!.get!.responses['200']!.headers).toBeUndefined();
      expect(document.paths['/employee/{employee_id}']!.delete!.responses['204']).toEqual({ description: 'Deleted: no body.' });
      // every shared error answer has its problem example, but 401, which has no body
      for (const [name, response] of Object.entries(document.components.responses as Record<string, { content?: Record<string, { example?: unknown }> }>)) {
        if (name === 'Unauthorized') expect(response.content).toBeUndefined();
        else expect(response.content!['application/problem+json']!.example, name).toMatchObject({ title: expect.any(String), detail: expect.any(String) });
      }
    });

    it('is the document the typed client is generated from, as committed (update it with `vitest -u`)', async () => {
      await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot(CLIENT_DOCUMENT);
    });

    it("passes Redocly's recommended rules with no error and no warning", async () => {
      const directory = await mkdtemp(join(tmpdir(), 'rm-openapi-'));
      try {
        const file = join(directory, 'openapi.json');
        await writeFile(file, JSON.stringify(document));
        expect(await redoclyProblems(file)).toEqual([]);
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    });
  });
}

/** What `redocly lint --extends recommended` reports, as `rule at pointer: message`. */
async function redoclyProblems(file: string): Promise<string[]> {
  const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const args = [cli, 'lint', file, '--extends', 'recommended', '--format', 'json', '--max-problems', '1000'];
  // it exits with 1 when it finds a problem: the report is read either way
  const { stdout } = await promisify(execFile)(process.execPath, args, { env, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  const report = JSON.parse(stdout) as { problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
  return report.problems.map(({ ruleId, message, location }) => `${ruleId} at ${location[0]?.pointer ?? '?'}: ${message}`);
}
