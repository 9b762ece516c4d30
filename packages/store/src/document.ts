import type { OutboxEntry } from '@rm/contracts';

/** The resources of one list: a tenant's top-level resources, or the sub-resources of one parent. */
export interface Scope {
  tenant: string;
  /** The key of the resource this one belongs to (`/employee/{parent}/availability/…`). */
  parent?: string;
}

export interface ResourceId extends Scope {
  key: string;
}

export interface Resource<Body> extends ResourceId {
  version: number;
  body: Body;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * JSON text of a value the caller chose. Bodies and event data are stored as text, never as BSON
 * documents, so that any key a caller may send (`$where`, `a.b`, `__proto__`, `_bsontype`, `$ref`)
 * comes back exactly as sent: the driver refuses the first two, and BSON misreads the last two.
 */
export type JsonText<Value> = string & { readonly __json?: Value };

export function toJsonText<Value>(value: Value): JsonText<Value> {
  return JSON.stringify(value) as JsonText<Value>;
}

export function fromJsonText<Value>(text: JsonText<Value>): Value {
  return JSON.parse(text) as Value;
}

/** An event as it waits in a document's outbox: its data as JSON text (see JsonText). */
export type StoredEvent = Omit<OutboxEntry, 'data'> & { data: JsonText<OutboxEntry['data']> };

export function toStoredEvent({ data, ...event }: OutboxEntry): StoredEvent {
  return { ...event, data: toJsonText(data) };
}

export function fromStoredEvent({ data, ...event }: StoredEvent): OutboxEntry {
  return { ...event, data: fromJsonText(data) };
}

/**
 * One stored resource. `body` holds the caller's fields apart from ours, so that no caller field can
 * collide with `version`, `outbox` and the rest; `indexed` holds what queries and indexes need, in
 * query-ready form (dates as dates). A delete leaves a tombstone (`deleted`, no body) that keeps the
 * version counter, so a resource created again continues its versions.
 */
export interface StoredDocument<Body> {
  _id: string;
  tenant: string;
  parent?: string;
  key: string;
  version: number;
  body?: JsonText<Body>;
  indexed?: Record<string, unknown>;
  /** The buckets of its list that a live resource is read in (list-buckets.ts); a tombstone has none. */
  pages?: Record<string, number>;
  deleted?: true;
  /** On a parent's tombstone while its sub-resources are still being removed (see cascade). */
  cascading?: true;
  created_at: Date;
  updated_at: Date;
  outbox?: StoredEvent[];
  /** Set with the outbox's first event, dropped with its last (see OUTBOX_WAITING_FIELD). */
  outbox_waiting?: true;
}

/** Field of a stored document that holds its unpublished events; absent when none wait. */
export const OUTBOX_FIELD = 'outbox';

/**
 * `true` while the outbox holds events, absent otherwise: the relay's sweep finds waiting documents by
 * this equality, which an index serves on MongoDB and FerretDB alike (FerretDB pushes no `$exists`
 * down, and read every document of every collection for it).
 */
export const OUTBOX_WAITING_FIELD = 'outbox_waiting';

/**
 * `<tenant>/<key>` or `<tenant>/<parent>/<key>`. Neither tenants nor keys contain `/` (tenant ids and
 * business ids do not allow it, generated ids are UUIDs), so the id is unambiguous, and a
 * sub-resource is never reachable under another parent.
 */
export function documentId({ tenant, parent, key }: ResourceId): string {
  return parent === undefined ? `${tenant}/${key}` : `${tenant}/${parent}/${key}`;
}

/**
 * The key a document is locked under (DocumentLocks): its collection and its id, so that documents of
 * two collections with the same id never wait on each other.
 */
export function lockKey(collection: string, documentId: string): string {
  return `${collection}:${documentId}`;
}

/** The entity id of events: the key, or `<parent>/<key>` for a sub-resource, unique within its tenant. */
export function entityId({ parent, key }: ResourceId): string {
  return parent === undefined ? key : `${parent}/${key}`;
}

/** The filter of one list: tenant, and parent for sub-resources. */
export function scopeFilter({ tenant, parent }: Scope): { tenant: string; parent?: string } {
  return parent === undefined ? { tenant } : { tenant, parent };
}

export function toResource<Body>(document: StoredDocument<Body>): Resource<Body> {
  return withBody(document, fromJsonText(document.body as JsonText<Body>));
}

/** The resource a document holds, with its body as the caller has it already (its text is not parsed again). */
export function withBody<Body>(document: StoredDocument<Body>, body: Body): Resource<Body> {
  return {
    tenant: document.tenant,
    ...(document.parent === undefined ? {} : { parent: document.parent }),
    key: document.key,
    version: document.version,
    body,
    createdAt: document.created_at,
    updatedAt: document.updated_at,
  };
}
