import { STATUS_CODES } from 'node:http';
import type { RouteOptions } from 'fastify';

/** OpenAPI 3.1 path items by path relative to the base path (`/employee/{employee_id}`). */
export type OpenApiPaths = Record<string, Record<string, OpenApiOperation>>;

/** An operation as a service describes it; the gateway adds its words, conventions and examples (a `$ref` stands for a shared part). */
export interface OpenApiOperation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  /** `x-experimental: true` marks what the spec marks experimental, or an extension beyond it: it may still change. */
  [extension: `x-${string}`]: unknown;
  parameters?: (OpenApiParameter | OpenApiRef)[];
  requestBody?: { required: boolean; content: Record<string, OpenApiMediaType> };
  responses: Record<string, OpenApiResponse | OpenApiRef>;
}

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: unknown;
  example?: unknown;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, OpenApiMediaType>;
}

export interface OpenApiMediaType {
  schema: unknown;
  example?: unknown;
}

export interface OpenApiRef {
  $ref: string;
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** Where a part of the request goes in OpenAPI. */
const PARAMETER_PARTS = [
  ['params', 'path'],
  ['querystring', 'query'],
  ['headers', 'header'],
] as const;

/** Service-to-service routes under the base path: the gateway neither routes nor documents them. */
export const INTERNAL_PATH = '/internal';

/**
 * Collects the service's API routes (those under the base path) with their schemas as OpenAPI path
 * items: the service's part of the one document the gateway serves. Schemas are the contracts'
 * JSON Schemas as the routes validate with them.
 */
export function createOpenApiCollector(basePath: string) {
  const paths: OpenApiPaths = {};
  return {
    /** An `onRoute` hook. */
    record(route: RouteOptions): void {
      if (!route.url.startsWith(`${basePath}/`) || route.url.includes('*')) return;
      const path = route.url.slice(basePath.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      if (path.startsWith(`${INTERNAL_PATH}/`)) return;
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        (paths[path] ??= {})[method.toLowerCase()] = operation(route.schema ?? {});
      }
    },
    paths: (): OpenApiPaths => paths,
  };
}

function operation(schema: NonNullable<RouteOptions['schema']>): OpenApiOperation {
  const parts = schema as Record<string, unknown>;
  const parameters = PARAMETER_PARTS.flatMap(([part, location]) => parametersOf(parts[part] as ObjectSchema | undefined, location));
  const responses = Object.fromEntries(
    Object.entries((parts.response ?? {}) as Record<string, unknown>).map(([status, body]) => [status, response(Number(status), body)]),
  );
  return {
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(parts.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: plain(parts.body) } } } }),
    responses: { ...responses, 401: { description: 'No valid bearer token; see WWW-Authenticate' } },
  };
}

function parametersOf(schema: ObjectSchema | undefined, location: OpenApiParameter['in']): OpenApiParameter[] {
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (schema?.required ?? []).includes(name),
    schema: plain(property),
  }));
}

function response(status: number, body: unknown) {
  const mediaType = status >= 400 ? 'application/problem+json' : (body as { type?: unknown }).type === 'string' ? 'text/plain' : 'application/json';
  return { description: STATUS_CODES[status] ?? String(status), content: { [mediaType]: { schema: plain(body) } } };
}

/** The schema as JSON has it (TypeBox marks its schemas with symbol keys). */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema)) as unknown;
}
