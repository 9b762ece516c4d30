import { expect } from 'vitest';
import { json } from '../service-helpers.js';

/** A UUID of version 7, as the services generate ids and event ids. */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type Body = Record<string, unknown>;
export type Headers = Record<string, string>;
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Violation = { field: string; message: string };

/** An answer of Fastify's inject(), as far as the suites read it. */
export interface InjectedResponse {
  statusCode: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
}

/** A Fastify app, as far as the suites call it. */
export interface InjectableApp {
  inject(request: { method: Method; url: string; headers: Headers; payload?: object | string }): Promise<InjectedResponse>;
}

/** What the suites need of a started service: a harness of startServiceHarness, or one adapted to look like it. */
export interface ServiceUnderTest {
  app: InjectableApp;
  /** The headers of a client of the tenant, which may prepare what the tenant's lists need (a parent resource). */
  as(tenant: string): Promise<Headers>;
  close(): Promise<void>;
}

export { json } from '../service-helpers.js';

/** An application/problem+json body, as far as the suites read it. */
export interface Problem {
  title: string;
  detail: string;
  violations?: Violation[];
}

/**
 * An application/problem+json answer of the status with a title and a detail, each as `expected` has it
 * where it says (a string, or a matcher such as expect.stringContaining); returns the problem, read as `Shape`.
 */
export function expectProblemWithStatus<Shape = Problem>(
  response: InjectedResponse,
  status: number,
  expected: { title?: unknown; detail?: unknown } = {},
): Shape {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = json<Shape>(response);
  expect(problem).toMatchObject({ title: expected.title ?? expect.any(String), detail: expected.detail ?? expect.any(String) });
  return problem;
}

/** The violations of a 400 problem, checked to be application/problem+json with a title and a detail. */
export function expectProblem(response: InjectedResponse): Violation[] {
  return expectProblemWithStatus<{ violations: Violation[] }>(response, 400).violations;
}

/**
 * The service with every tenant set up by `setUp`, once, before a suite's client of it gets its headers (the
 * parent resource that its lists hang under, say), closed by `close`, which stops what runs around it too.
 */
export function withTenantSetup<Service extends ServiceUnderTest>(
  service: Service,
  setUp: (tenant: string, headers: Headers) => Promise<unknown>,
  close: () => Promise<void>,
): Service {
  const setUpTenants = new Set<string>();
  return {
    ...service,
    close,
    async as(tenant: string) {
      const headers = await service.as(tenant);
      if (!setUpTenants.has(tenant)) await setUp(tenant, headers);
      setUpTenants.add(tenant);
      return headers;
    },
  };
}
