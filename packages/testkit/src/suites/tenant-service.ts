import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { expect } from 'vitest';
import type { RecordedEvents } from '../record-events.js';
import type { ServiceHarness } from '../service-harness.js';
import { uniqueName } from '../unique-name.js';
import { waitFor } from '../wait-for.js';
import { BASE } from '../service-helpers.js';
import type { Body, InjectedResponse, Method } from './service-under-test.js';

export type { Body, Method };

export type Request = (method: Method, path: string, payload?: object, headers?: Record<string, string>) => Promise<InjectedResponse>;

/** An event envelope, as far as the suites read it. */
export interface Event {
  id: string;
  type: string;
  tenant: string;
  entity_id: string;
  version: number;
  occurred_at: string;
  data: Body;
}

export interface Published {
  subject: string;
  event: Event;
}

/** One tenant's side of a running service: its API, the events published for the tenant, its database. */
export interface TenantService {
  tenant: string;
  /** The service's name as its subjects carry it: `rm.<service>.<tenant>.<entity>.<action>`. */
  service: string;
  /** Calls the API (below /resource-management/v1) as the tenant. */
  request: Request;
  /** The tenant's events so far, in stream order, duplicates included. */
  published(): Published[];
  /**
   * Waits for the event of a write made after everything before it (an entity whose id starts with
   * `sentinel-`), then a little more: whatever was due has been published by then.
   */
  settle(): Promise<void>;
  /** Committed writes so far: each hands its events to the relay. */
  writes(): number;
  db: Db;
  close(): Promise<void>;
}

/** Harnessed service whose store the suites read directly. */
type StoredHarness = ServiceHarness<{ app: unknown; store: { db: Db; outbox: { onCommit(listener: () => void): unknown } }; stop(): Promise<unknown> }>;

export interface TenantServiceOptions<Harness extends StoredHarness> {
  service: string;
  start(): Promise<Harness>;
  /** Records the tenant's events (the service has started: it declares its stream). */
  record(tenant: string): Promise<RecordedEvents<Event>>;
  /** A top-level resource (its path, a valid body) that settle() writes. */
  sentinel: { path: string; body: Body };
}

/** A harnessed service as a fresh tenant sees it, its events recorded from the run's nats-server. */
export async function startTenantService<Harness extends StoredHarness>(
  options: TenantServiceOptions<Harness>,
): Promise<TenantService & { harness: Harness }> {
  const tenant = uniqueName('tenant');
  const harness = await options.start();
  let events: RecordedEvents<Event>;
  let headers: Record<string, string>;
  try {
    headers = await harness.as(tenant);
    events = await options.record(tenant);
  } catch (error) {
    await harness.close();
    throw error;
  }
  const app = harness.app as { inject(request: object): Promise<InjectedResponse> };
  const request: Request = (method, path, payload, extra = {}) =>
    app.inject({ method, url: `${BASE}${path}`, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload }) });
  const published = () => events.received;
  return {
    tenant,
    service: options.service,
    harness,
    request,
    published,
    async settle() {
      const sentinel = `sentinel-${randomUUID()}`;
      const written = await request('PUT', `${options.sentinel.path}/${sentinel}`, options.sentinel.body);
      if (written.statusCode !== 201) throw new Error(`the sentinel was not written: ${written.statusCode} ${written.body}`);
      await waitFor('the sentinel event', async () => published().some(({ event }) => event.entity_id === sentinel));
      await sleep(300);
    },
    writes: () => harness.writes(),
    db: harness.service.store.db,
    async close() {
      await events.close();
      await harness.close();
    },
  };
}

/** The subject of `<entity>.<action>` events of the tenant. */
export const subjectOf = (service: TenantService, entity: string, action: string) => `rm.${service.service}.${service.tenant}.${entity}.${action}`;

export const eventsOf = (service: TenantService, entityId: string) => service.published().filter(({ event }) => event.entity_id === entityId);

/** The events of the entity once `count` of them have arrived. */
export const arrived = (service: TenantService, entityId: string, count: number) =>
  waitFor(`${count} events of ${entityId}`, async () => eventsOf(service, entityId).length >= count && eventsOf(service, entityId));

/** What was published after the first `seen` events, settle()'s sentinels left out. */
export const publishedSince = (service: TenantService, seen: number) =>
  service
    .published()
    .slice(seen)
    .filter(({ event }) => !event.entity_id.startsWith('sentinel-'));

export const summary = (published: Published[]) => published.map(({ subject, event }) => [subject, event.type, event.entity_id, event.version]);

/** Where the items of a resource live for one test: below a parent of the test's own, where the resource has one. */
export interface Paths {
  item(id: string): string;
  /** The entity id that the item's events carry. */
  entityId(id: string): string;
  /** The list that holds the parent's items (POST creates there, with an id the service chooses, where `post`). */
  list?: string;
  post?: boolean;
  /** A new id of the caller's choosing, where PUT creates. */
  newId?(): string;
  /** An id that the path's schema refuses (400). */
  badId: string;
}

/** A top-level resource below `path`, whose ids the caller chooses (`<idPrefix>-<uuid>`). */
export function topLevel(path: string, idPrefix: string): Paths & { newId(): string } {
  return { item: (id) => `${path}/${id}`, entityId: (id) => id, newId: () => `${idPrefix}-${randomUUID()}`, badId: 'bad!id' };
}

/** The sub-resources of `parent` in `list`, their events naming them `<parent>/<id>`. */
export function subResource<Ids extends Pick<Paths, 'post' | 'newId' | 'badId'>>(list: string, parent: string, ids: Ids): Paths & Ids & { list: string } {
  return { item: (id) => `${list}/${id}`, entityId: (id) => `${parent}/${id}`, list, ...ids };
}

/** Creates an item: POSTed where the service chooses ids, else PUT at a new id of the caller's. */
export async function create(service: TenantService, paths: Paths, body: Body): Promise<{ id: string; created: InjectedResponse }> {
  if (paths.post === true && paths.list !== undefined) {
    const created = await service.request('POST', paths.list, body);
    expect(created.statusCode, created.body).toBe(201);
    return { id: (JSON.parse(created.body) as { id: string }).id, created };
  }
  if (paths.newId === undefined) throw new Error('the resource has neither a list to POST to nor ids of the caller');
  const id = paths.newId();
  const created = await service.request('PUT', paths.item(id), body);
  expect(created.statusCode, created.body).toBe(201);
  return { id, created };
}
