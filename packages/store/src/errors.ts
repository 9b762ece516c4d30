/** Errors of the store. `statusCode` lets the HTTP layer answer them as they are (below 500: shown). */
export class StoreError extends Error {
  readonly code: string;
  readonly statusCode: number;
  constructor(code: string, statusCode: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.statusCode = statusCode;
  }
}

export class ResourceNotFoundError extends StoreError {
  constructor(entity: string, key: string) {
    super('RM_STORE_NOT_FOUND', 404, `${entity} '${key}' does not exist`);
  }
}

/** If-Match named a version that is not the current one, or the resource does not exist. */
export class PreconditionFailedError extends StoreError {
  constructor(entity: string, key: string, current: number | undefined) {
    super(
      'RM_STORE_PRECONDITION_FAILED',
      412,
      current === undefined
        ? `If-Match given, but ${entity} '${key}' does not exist`
        : `If-Match does not match the current version of ${entity} '${key}' (W/"${current}")`,
    );
  }
}

/** Every attempt lost a race with another writer of the same document; the caller may retry. */
export class ConcurrentWriteError extends StoreError {
  constructor(entity: string, key: string) {
    super('RM_STORE_CONCURRENT_WRITE', 409, `${entity} '${key}' was changed concurrently; retry the request`);
  }
}

export class DatabaseUnavailableError extends StoreError {
  constructor(message: string, options?: ErrorOptions) {
    super('RM_STORE_UNAVAILABLE', 503, message, options);
  }
}

/** MongoDB's duplicate-key code; FerretDB keeps the codes, not the messages (PRACTICES). */
export const DUPLICATE_KEY = 11000;

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}
