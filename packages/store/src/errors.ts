import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

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

/** The database cannot be reached (network, no server selectable, client closed): worth a retry. */
export function isOutage(error: unknown): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError
  );
}

/** Runs a database call; an outage becomes a DatabaseUnavailableError (503) instead of a bare driver error. */
export async function orUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isOutage(error)) throw new DatabaseUnavailableError('The database cannot be reached right now; retry later', { cause: error });
    throw error;
  }
}

/** MongoDB's duplicate-key code; FerretDB keeps the codes, not the messages (PRACTICES). */
export const DUPLICATE_KEY = 11000;

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}
