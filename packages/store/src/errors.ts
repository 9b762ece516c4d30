import { MongoBulkWriteError, MongoNetworkError, MongoNotConnectedError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

/**
 * Errors of the store. `statusCode` lets the HTTP layer answer them as they are (below 500: shown),
 * with `extensions` as extension members of the problem.
 */
export class StoreError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly extensions: Record<string, unknown>;
  constructor(code: string, statusCode: number, message: string, options?: ErrorOptions & { extensions?: Record<string, unknown> }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.statusCode = statusCode;
    this.extensions = options?.extensions ?? {};
  }
}

export class ResourceNotFoundError extends StoreError {
  constructor(entity: string, key: string) {
    super('RM_STORE_NOT_FOUND', 404, `${entity} '${key}' does not exist`);
  }
}

/** For `.catch` of a removal that may find its resource gone already (another removal took it): anything else is thrown. */
export function ignoreNotFound(error: unknown): void {
  if (!(error instanceof ResourceNotFoundError)) throw error;
}

/** If-Match named a version that is not the current one, or the resource does not exist. */
export class PreconditionFailedError extends StoreError {
  /** The current version; undefined when the resource does not exist. */
  readonly current: number | undefined;

  constructor(entity: string, key: string, current: number | undefined) {
    super(
      'RM_STORE_PRECONDITION_FAILED',
      412,
      current === undefined
        ? `If-Match given, but ${entity} '${key}' does not exist`
        : `If-Match does not match the current version of ${entity} '${key}' (W/"${current}")`,
    );
    this.current = current;
  }
}

/** Every attempt lost a race with another writer of the same document; the caller may retry. */
export class ConcurrentWriteError extends StoreError {
  constructor(entity: string, key: string) {
    super('RM_STORE_CONCURRENT_WRITE', 409, `${entity} '${key}' was changed concurrently; retry the request`);
  }
}

/** A write would break an invariant across items of one parent (a guard's rule): 409 naming the other item. */
export class ResourceConflictError extends StoreError {
  constructor(message: string, conflictingKey: string) {
    super('RM_STORE_CONFLICT', 409, message, { extensions: { conflicting_id: conflictingKey } });
  }
}

/** A write would give a parent more sub-resources than its guard can hold (MAX_GUARD_ITEMS). */
export class TooManyItemsError extends StoreError {
  constructor(entity: string, parentEntity: string, parent: string, maxItems: number) {
    super(
      'RM_STORE_TOO_MANY',
      409,
      `${parentEntity} '${parent}' has ${maxItems.toLocaleString('en')} ${entity} resources, the most it may have; delete some first`,
    );
  }
}

/** The write's event would be larger than the broker accepts, so it could never be published. */
export class EventTooLargeError extends StoreError {
  constructor(entity: string, bytes: number, limit: number) {
    super('RM_STORE_EVENT_TOO_LARGE', 413, `The ${entity} is too large: its change event would take ${bytes} bytes, more than the ${limit} bytes an event may take.`);
  }
}

/** An event that breaks its own contract: a bug of ours, never the caller's (500). */
export class InvalidEventError extends StoreError {
  constructor(reason: string) {
    super('RM_STORE_INVALID_EVENT', 500, `refused to write an invalid event: ${reason}`);
  }
}

/** A definition or call the store cannot serve, such as an upsert into a collection that purges tombstones. */
export class StoreUsageError extends StoreError {
  constructor(message: string) {
    super('RM_STORE_USAGE', 500, message);
  }
}

export class DatabaseUnavailableError extends StoreError {
  constructor(message: string, options?: ErrorOptions) {
    super('RM_STORE_UNAVAILABLE', 503, message, options);
  }
}

/**
 * The write was refused (an error with a status below 500: a conflict, a missing parent, a bad body), so
 * nothing was written; after any other error the write may have happened.
 */
export function isRefusal(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status < 500;
}

/**
 * The database cannot be reached (network, no server selectable, client closed): worth a retry. The
 * store's own DatabaseUnavailableError counts, and so does any error caused by an outage, so that a
 * consumer whose handler writes through the store waits out the outage too. A bulk write wraps the
 * error that stopped it in a MongoBulkWriteError (driver 7), keeping it as `errorResponse`.
 */
export function isOutage(error: unknown): boolean {
  return (
    error instanceof DatabaseUnavailableError ||
    (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error && isOutage(error.errorResponse)) ||
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    (error instanceof MongoServerError && cannotServeNow(error)) ||
    (error instanceof Error && error.cause !== undefined && error.cause !== error && isOutage(error.cause))
  );
}

/**
 * MongoDB's codes for a server that is shutting down, stepping down or cut off (ShutdownInProgress,
 * InterruptedAtShutdown, PrimarySteppedDown, NotWritablePrimary, NotPrimaryNoSecondaryOk,
 * NotPrimaryOrSecondary, InterruptedDueToReplStateChange, HostUnreachable, NetworkTimeout).
 */
const UNAVAILABLE_CODES = new Set([91, 11600, 189, 10107, 13435, 13436, 11602, 6, 89]);
/**
 * FerretDB answers InternalError (1) when PostgreSQL cannot serve it: with PostgreSQL's SQLSTATE in the
 * message when PostgreSQL said so (class 08 connection exception, 53 insufficient resources such as too many
 * clients, 57P shutting down or cannot connect now), or with its PostgreSQL client's own error when
 * PostgreSQL could not be reached at all (a connection refused, reset or ended in the middle of an answer).
 */
const FERRETDB_BACKEND_AWAY = [
  /\(SQLSTATE (08|53|57P)[0-9A-Z]*\)/,
  /failed to connect to `/,
  /(?:read|write) tcp \S+: (?:read|write): (?:connection reset by peer|broken pipe)/,
  /unexpected EOF/,
];

function cannotServeNow(error: MongoServerError): boolean {
  return (
    (typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code)) ||
    (error.code === 1 && FERRETDB_BACKEND_AWAY.some((pattern) => pattern.test(error.message)))
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
