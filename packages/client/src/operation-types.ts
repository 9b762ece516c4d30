import type { operations } from './generated/api.js';
import type { OPERATIONS } from './generated/operations.js';

// The types of each operation's arguments and answer, from the generated types of the API document.

export type OperationId = keyof typeof OPERATIONS & keyof operations;

/** The operations that list cursor-paged, with the property of their page that holds the items. */
export type PagedOperationId = { [Id in OperationId]: (typeof OPERATIONS)[Id] extends { list: string } ? Id : never }[OperationId];

/** One string per path parameter, in the order of the path. */
type PathArguments<Id extends OperationId> = Strings<(typeof OPERATIONS)[Id]['pathParameters']>;
type Strings<Names> = Names extends readonly [unknown, ...infer Rest] ? [string, ...Strings<Rest>] : [];

export type RequestBody<Id extends OperationId> = operations[Id] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
type BodyArgument<Id extends OperationId> = [RequestBody<Id>] extends [never] ? [] : [body: RequestBody<Id>];

export type Query<Id extends OperationId> = operations[Id]['parameters'] extends { query?: infer Q } ? ([Q] extends [never] ? undefined : Q) : undefined;

type HeaderParameters<Id extends OperationId> = operations[Id]['parameters'] extends { header?: infer H } ? NonNullable<H> : never;
/** Offered only where the operation takes the header: a write that may be conditional, a create (POST). */
type HeaderOption<Id extends OperationId, Header extends string, Option> = [HeaderParameters<Id>] extends [never] ? unknown : Header extends keyof HeaderParameters<Id> ? Option : unknown;

export type CallOptions<Id extends OperationId> = {
  /** The query parameters (filters, `limit`; `cursor` is the iterators' business). */
  query?: Query<Id>;
  signal?: AbortSignal;
} & HeaderOption<
  Id,
  'If-Match',
  {
    /** Writes only if the resource is at this version: its ETag (`W/"4"`) or the version (4); 412 otherwise. */
    ifMatch?: string | number;
  }
> &
  HeaderOption<
    Id,
    'idempotency-key',
    {
      /** The create's key: the client makes one up when none is given, so that its retries create once. */
      idempotencyKey?: string;
    }
  >;

export type Arguments<Id extends OperationId> = [...PathArguments<Id>, ...BodyArgument<Id>, options?: CallOptions<Id>];

type Success<Responses> = { [Status in keyof Responses]: Status extends 200 | 201 ? ContentOf<Responses[Status]> : never }[keyof Responses];
type ContentOf<Response> = Response extends { content: infer Content } ? Content[keyof Content] : never;

/** What a successful call answers with: undefined for a delete (204). */
export type Data<Id extends OperationId> = [Success<operations[Id]['responses']>] extends [never] ? undefined : Success<operations[Id]['responses']>;

/** One item of a paged list. */
export type Item<Id extends PagedOperationId> = Data<Id> extends infer Page
  ? (typeof OPERATIONS)[Id] extends { list: infer List extends keyof Page }
    ? Page[List] extends readonly (infer Each)[] | undefined
      ? Each
      : never
    : never
  : never;

/** A successful answer: its body, and the headers a caller uses next (the version for If-Match, where a create put its resource). */
export interface ApiResult<T> {
  status: number;
  data: T;
  /** `W/"<version>"`, for `ifMatch`. */
  etag: string | undefined;
  /** The URL of what a write wrote; for a create, it ends with the generated id. */
  location: string | undefined;
  headers: Headers;
}
