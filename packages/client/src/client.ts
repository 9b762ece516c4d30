import createFetchClient from 'openapi-fetch';
import { followChanges, type Change, type ChangesOptions } from './changes.js';
import { ApiError, asProblem } from './errors.js';
import { importLines, type ImportLine, type ImportOutcome } from './import.js';
import type { paths } from './generated/api.js';
import { OPERATIONS } from './generated/operations.js';
import type { ApiResult, Arguments, Data, Item, OperationId, PagedOperationId } from './operation-types.js';
import { isRepeatable, retrying, type RetryPolicy } from './retries.js';
import { createTokenSource, type ClientAuthentication, type TokenSource } from './token-source.js';

export interface ClientOptions {
  /** The API's base URL, like https://rm.example.org/resource-management/v1. */
  baseUrl: string;
  /** The token endpoint, like https://rm.example.org/oauth2/token. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Attempts after the first for a 429, 503, 504 or lost connection (see retries.ts); default 4. */
  retries?: number;
  /** The longest pause between attempts, whatever Retry-After asks; default 30 s. */
  maxRetryDelayMs?: number;
  /** How long one attempt waits for its answer before it counts as a lost connection; default 30 s. */
  timeoutMs?: number;
  /** The share of a token's lifetime after which it is renewed; default 0.85 (the spec asks 80 to 90 %). */
  renewTokensAfter?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** `client_secret_post` for a browser page (see token-source.ts); default `client_secret_basic`. */
  clientAuthentication?: ClientAuthentication;
}

/** One method per operationId, and `each.<operationId>` for the paged lists. */
export type ApiClient = { [Id in OperationId]: (...args: Arguments<Id>) => Promise<ApiResult<Data<Id>>> } & {
  /** Every item of a paged list, page after page, following `cursors.next`. */
  each: { [Id in PagedOperationId]: (...args: Arguments<Id>) => AsyncIterable<Item<Id>> };
  /** The tenant's changes as they happen (GET /changes), resumed after a break; see changes.ts. */
  changes(options?: ChangesOptions): AsyncIterable<Change>;
  /** Many writes in one request (POST /import), each line's outcome as it comes; see import.ts. */
  importLines(lines: Iterable<ImportLine> | AsyncIterable<ImportLine>, options?: { signal?: AbortSignal }): AsyncIterable<ImportOutcome>;
};

/** The options of any operation, as the methods take them apart. */
interface AnyCallOptions {
  query?: object;
  ifMatch?: string | number;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

interface OperationEntry {
  method: string;
  path: string;
  pathParameters: readonly string[];
  body: boolean;
  response: 'json' | 'text';
  list?: string;
}

/** The typed client of the v1 API: tokens, retries and paging are its business, not its caller's. */
export function createClient(options: ClientOptions): ApiClient {
  // called as a plain function: a browser's fetch must keep its window as `this`
  const plainFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const baseFetch = withTimeout(plainFetch, options.timeoutMs ?? 30_000);
  const renewAfter = options.renewTokensAfter ?? 0.85;
  if (!(renewAfter > 0 && renewAfter <= 1)) throw new RangeError('renewTokensAfter must be above 0 and at most 1');
  const retry: RetryPolicy = { retries: options.retries ?? 4, maxDelayMs: options.maxRetryDelayMs ?? 30_000 };
  const tokens = createTokenSource({ ...options, fetch: baseFetch, retry, renewAfter });
  const http = createFetchClient<paths>({ baseUrl: options.baseUrl, fetch: authorizedFetch(tokens, retry, baseFetch) });

  async function call(id: OperationId, args: unknown[]): Promise<ApiResult<unknown>> {
    const operation: OperationEntry = OPERATIONS[id];
    const path = Object.fromEntries(operation.pathParameters.map((name, index) => [name, args[index]]));
    const rest = args.slice(operation.pathParameters.length);
    const body = operation.body ? rest.shift() : undefined;
    const { query, ifMatch, idempotencyKey, signal } = (rest[0] ?? {}) as AnyCallOptions;
    const header: Record<string, string> = {};
    if (ifMatch !== undefined) header['if-match'] = typeof ifMatch === 'number' ? `W/"${ifMatch}"` : ifMatch;
    // a create made safe to send again: retries of it create one resource
    if (operation.method === 'POST') header['idempotency-key'] = idempotencyKey ?? crypto.randomUUID();
    // dispatched by the table at run time: the types of each method come from operation-types.ts
    const { data, error, response } = await http.request(operation.method as 'get', operation.path as never, {
      params: { path, query, header },
      ...(body === undefined ? {} : { body }),
      parseAs: operation.response,
      ...(signal === undefined ? {} : { signal }),
    } as never);
    if (!response.ok) throw new ApiError(response.status, asProblem(error), response.headers, id);
    return { status: response.status, data, etag: response.headers.get('etag') ?? undefined, location: response.headers.get('location') ?? undefined, headers: response.headers };
  }

  async function* each(id: OperationId, args: unknown[]): AsyncIterable<unknown> {
    const { list, pathParameters } = OPERATIONS[id] as OperationEntry;
    const options = (args[pathParameters.length] ?? {}) as AnyCallOptions;
    let cursor: string | undefined;
    do {
      const query = { ...options.query, ...(cursor === undefined ? {} : { cursor }) };
      const { data } = await call(id, [...args.slice(0, pathParameters.length), { ...options, query }]);
      const page = data as Record<string, unknown> & { cursors?: { next?: string } };
      yield* page[list!] as unknown[];
      cursor = page.cursors?.next;
    } while (cursor !== undefined);
  }

  const methods = Object.fromEntries(Object.keys(OPERATIONS).map((id) => [id, (...args: unknown[]) => call(id as OperationId, args)]));
  const iterators = Object.fromEntries(
    Object.entries(OPERATIONS)
      .filter(([, operation]) => 'list' in operation)
      .map(([id]) => [id, (...args: unknown[]) => each(id as OperationId, args)]),
  );
  // no timeout on the streams: the feed's heartbeats tell a live one from a lost one, and an import takes its time
  const feedFetch = authorizedFetch(tokens, retry, plainFetch);
  const importFetch = authorizedOnce(tokens, plainFetch);
  const changes = (changesOptions?: ChangesOptions) =>
    followChanges((query, signal) => feedFetch(new Request(`${options.baseUrl}/changes?${query}`, { signal })), changesOptions);
  const imports = (lines: Iterable<ImportLine> | AsyncIterable<ImportLine>, importOptions: { signal?: AbortSignal } = {}) =>
    importLines(
      (body, signal) =>
        importFetch(new Request(`${options.baseUrl}/import`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/x-ndjson' }, ...(signal === undefined ? {} : { signal }) } as RequestInit)),
      lines,
      importOptions.signal,
    );
  return { ...methods, each: iterators, changes, importLines: imports } as ApiClient;
}

/**
 * The fetch every call goes through: the client's bearer token on each attempt, a token the API
 * refused as `invalid_token` renewed once, and the retries of retries.ts.
 */
function authorizedFetch(tokens: TokenSource, retry: RetryPolicy, baseFetch: typeof fetch) {
  return async (request: Request): Promise<Response> => {
    const idempotencyKey = request.headers.get('idempotency-key') ?? undefined;
    const attempt = async () => {
      const token = await tokens.current();
      const sent = request.clone();
      sent.headers.set('authorization', `Bearer ${token}`);
      return { token, response: await baseFetch(sent) };
    };
    let renewed = false;
    const send = async () => {
      const { token, response } = await attempt();
      if (response.status === 401 && !renewed && isRefusedToken(response)) {
        renewed = true;
        tokens.refused(token);
        await response.body?.cancel();
        return (await attempt()).response;
      }
      return response;
    };
    // the token first, whose own request has had its retries: the attempts find it ready
    await tokens.current();
    return retrying(retry, { repeatable: isRepeatable(request.method, idempotencyKey), signal: request.signal }, send);
  };
}

/**
 * A request whose body is a stream (an import), sent once with the client's token: not retried, and not
 * cloned, as a clone tees the stream and holds all of it in memory for a retry, the whole import.
 */
function authorizedOnce(tokens: TokenSource, baseFetch: typeof fetch) {
  return async (request: Request): Promise<Response> => {
    const token = await tokens.current();
    request.headers.set('authorization', `Bearer ${token}`);
    const response = await baseFetch(request);
    // not sent again, but the caller's next import gets a new token
    if (response.status === 401 && isRefusedToken(response)) tokens.refused(token);
    return response;
  };
}

/** A 401 that says the token itself is no good (revoked, expired early): another one may do. */
function isRefusedToken(response: Response): boolean {
  return /error="invalid_token"/.test(response.headers.get('www-authenticate') ?? '');
}

/** `fetch` whose every attempt gives up after `timeoutMs` (as well as on the caller's own signal): no call waits forever. */
function withTimeout(baseFetch: typeof fetch, timeoutMs: number): typeof fetch {
  return (input, init) => {
    const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const signal = own == null ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([own, AbortSignal.timeout(timeoutMs)]);
    return baseFetch(input, { ...init, signal });
  };
}
