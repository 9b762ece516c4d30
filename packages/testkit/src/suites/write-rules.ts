import { beforeAll, describe, expect, it } from 'vitest';
import { useWorld } from '../service-helpers.js';
import { expectProblem, json, type Headers, type ServiceUnderTest, type Violation, type Body } from './service-under-test.js';

export interface WriteRulesOptions<Service extends ServiceUnderTest & { writes(): number }> {
  /** Starts the service once for the file; the suite closes it after the file's tests. */
  start(): Promise<Service>;
  /** The URL of the resource's list; a resource lives at `${path}/${id}`. */
  path: string;
  /** The path parameter of the resource's id, e.g. `home_base_id`. */
  idParameter: string;
  /** A valid body. */
  body(): Body;
  /** A body that breaks several rules, and the fields its violations name, sorted. */
  everyRuleBroken: { body: Body; fields: string[] };
}

/**
 * The rules every PUT of a business resource shares (unknown fields, bodies that are no JSON object,
 * the id in the path), declared as a describe; returns what the resource's own rule tests check with.
 */
export function describeWriteRules<Service extends ServiceUnderTest & { writes(): number }>(options: WriteRulesOptions<Service>) {
  const { path } = options;
  const { world: service } = useWorld(options.start);
  let headers: Headers;
  let counter = 0;

  beforeAll(async () => {
    headers = await service.as('tenant-rules');
  });

  /** A fresh id, so that every accepted body creates a resource of its own. */
  const nextId = () => `id-${(counter += 1)}`;
  const put = (id: string, body: unknown) => service.app.inject({ method: 'PUT', url: `${path}/${id}`, headers, payload: body as object });
  /** PUT with the body as JSON text, for bodies whose serialization must be exact. */
  const putText = (id: string, text: string) =>
    service.app.inject({ method: 'PUT', url: `${path}/${id}`, headers: { ...headers, 'content-type': 'application/json' }, payload: text });
  const get = (id: string) => service.app.inject({ method: 'GET', url: `${path}/${id}`, headers });
  const remove = (id: string) => service.app.inject({ method: 'DELETE', url: `${path}/${id}`, headers });

  /** The violations of a refused write; also checks that nothing was written under its id. */
  async function refused(write: (id: string) => ReturnType<typeof put>): Promise<Violation[]> {
    const id = nextId();
    const before = service.writes();
    const violations = expectProblem(await write(id));
    expect(service.writes()).toBe(before);
    expect((await get(id)).statusCode).toBe(404);
    return violations;
  }
  const violationsOf = (body: unknown) => refused((id) => put(id, body));

  /** The stored representation of an accepted body (201), checked to be what a GET shows. */
  async function accepted(body: unknown): Promise<Body> {
    const id = nextId();
    const response = await put(id, body);
    expect(response.statusCode, response.body).toBe(201);
    expect(json(await get(id))).toEqual(json(response));
    return json(response);
  }

  const withoutField = (field: string, body: Body = options.body()): Body => Object.fromEntries(Object.entries(body).filter(([key]) => key !== field));

  describe('every write', () => {
    it('refuses an unknown top-level field, naming it', async () => {
      expect(await violationsOf({ ...options.body(), colour: 'red' })).toEqual([{ field: 'colour', message: 'is not allowed' }]);
    });

    it('names every broken rule at once', async () => {
      const violations = await violationsOf(options.everyRuleBroken.body);
      expect(violations.map((violation) => violation.field).sort()).toEqual(options.everyRuleBroken.fields);
    });

    it('refuses a body that is not an object, and malformed JSON', async () => {
      expect(await violationsOf([options.body()])).toEqual([{ field: 'body', message: 'must be an object' }]);
      expect(await refused((id) => putText(id, '{"type": '))).toEqual([{ field: 'body', message: 'is not valid JSON' }]);
    });

    it('refuses __proto__ in a body', async () => {
      const text = `${JSON.stringify(options.body()).slice(0, -1)},"__proto__":{"inactive":true}}`;
      expect(await refused((id) => putText(id, text))).toEqual([
        { field: 'body', message: 'must not contain the keys __proto__ or constructor.prototype' },
      ]);
    });

    it(`refuses an id outside the business id pattern or longer than 512 characters, naming ${options.idParameter}`, async () => {
      for (const id of ['bad%20id', 'a'.repeat(513), 'caf%C3%A9', 'id!1']) {
        for (const response of [await put(id, options.body()), await get(id), await remove(id)]) {
          const violations = expectProblem(response);
          expect(violations.length, id).toBeGreaterThan(0);
          expect(new Set(violations.map((violation) => violation.field))).toEqual(new Set([options.idParameter]));
        }
      }
    });
  });

  return {
    service: () => service,
    /** The headers of the tenant the suite writes in. */
    headers: () => headers,
    nextId,
    putText,
    get,
    expectProblem,
    violationsOf,
    accepted,
    withoutField,
  };
}
