export { connectMongo, type ConnectMongoOptions, type MongoConnection } from './connect.js';
export {
  type JsonText,
  type Resource,
  type ResourceId,
  type Scope,
  type StoredDocument,
  type StoredEvent,
  documentId,
  entityId,
  fromJsonText,
  fromStoredEvent,
  OUTBOX_FIELD,
  toJsonText,
  toStoredEvent,
} from './document.js';
export {
  ConcurrentWriteError,
  DatabaseUnavailableError,
  EventTooLargeError,
  ignoreNotFound,
  InvalidEventError,
  isDuplicateKeyError,
  isOutage,
  isRefusal,
  orUnavailable,
  PreconditionFailedError,
  ResourceConflictError,
  ResourceNotFoundError,
  StoreError,
  StoreUsageError,
  TooManyItemsError,
} from './errors.js';
export { APPLIED_VERSIONS_COLLECTION } from './applied-versions.js';
export { createDocumentLocks, type DocumentLocks } from './document-locks.js';
export { inWaves } from './in-waves.js';
export { bucketsOf, inListOrder, keyBetween, listPosition } from './list-buckets.js';
export type { GroupedInsert } from './grouped-inserts.js';
export { setIfNewer } from './newer-state.js';
export {
  IDEMPOTENCY_KEY_TTL_MS,
  IDEMPOTENCY_KEYS_COLLECTION,
  IdempotencyKeyReusedError,
  IdempotentResourceGoneError,
  type IdempotentCreated,
} from './idempotent-creates.js';
export { GUARDS_COLLECTION, type GuardDefinition, type GuardDocument, type GuardItem, type GuardView } from './guard.js';
export {
  CREATE_BATCH,
  newKey,
  overlapping,
  type CascadeTarget,
  type CollectionDefinition,
  type IfMatch,
  type IndexedFilter,
  type KeysetRead,
  type KnownState,
  type KnownWrite,
  type ResourceCollection,
  type WriteResult,
} from './resource-collection.js';
export { createStore, type MaintenanceReport, type Store, type StoreOptions } from './store.js';
