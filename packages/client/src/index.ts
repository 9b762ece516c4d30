export { createClient, type ApiClient, type ClientOptions } from './client.js';
export type { Change, ChangeEvent, ChangesOptions } from './changes.js';
export type { ImportLine, ImportOutcome } from './import.js';
export { ApiError, type Problem } from './errors.js';
export type { components, operations, paths } from './generated/api.js';
export type { ApiResult, CallOptions, Data, Item, OperationId, PagedOperationId, RequestBody } from './operation-types.js';
