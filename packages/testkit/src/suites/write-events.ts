import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useWorld } from '../service-helpers.js';
import { waitFor } from '../wait-for.js';
import { expectProblemWithStatus, json, type InjectedResponse, UUID_V7 } from './service-under-test.js';
import {
  arrived,
  create,
  eventsOf,
  publishedSince,
  subjectOf,
  summary,
  type Body,
  type Paths,
  type TenantService,
} from './tenant-service.js';

/** A write, and the status it answers. */
export type Answered = [status: number, write: () => Promise<InjectedResponse>];

/** Where one test writes, and what it writes there. */
export interface WritePlace extends Paths {
  body: Body;
  /** Another valid body, written over `body`. */
  changed: Body;
  /** `changed` as the service keeps it, where it normalizes what it was sent (offsets, rounding). */
  changedKept?: Body;
  /** What writes of other items send, where items may not conflict with each other (else `body`). */
  another?: Body;
  /** What a GET shows of the item `id` holding `body` at `version`. */
  shown(id: string, body: Body, version: number): Body;
  /** What a write answers of the item's state, where its spec has it answer less than a GET shows. */
  answered?(state: Body): Body;
  /** The status of a PUT of an existing item, where its spec says other than 200. */
  updateStatus?: number;
  /** Whether what a GET shows may be PUT back as it is, read-only fields included (it may, unless false). */
  acceptsRepresentation?: boolean;
  /** The same resource below a parent that does not exist, where it has a parent: every write there is 404. */
  orphan?: Paths;
  /** Writes that the resource's own rules refuse, `item` being the path of an item at version 2. */
  refusals?(item: string): Answered[];
}

export interface EventedResource<Service extends TenantService> {
  /** The entity of its events: `<entity>.created`, `.updated`, `.deleted`. */
  entity: string;
  /** Its MongoDB collection, where a written document holds its events until they are published. */
  collection: string;
  /** A place of the test's own (a new parent, where the resource has one): each test starts with no items. */
  place(service: Service): Promise<WritePlace>;
}

const MINIMAL = { prefer: 'return=minimal' };
const STALE = { 'if-match': 'W/"1"' };

/**
 * One event per committed write, in order, carrying the version and the representation (a delete the
 * removed state), and none for an unchanged or refused write: for each resource, on the service that
 * `start` starts (once for the file). Returns the started service, for the file's own tests.
 */
export function describeWriteEvents<Service extends TenantService>(options: {
  start(): Promise<Service>;
  resources: EventedResource<Service>[];
}): () => Service {
  const { world: service } = useWorld(options.start);
  const request: Service['request'] = (...args) => service.request(...args);
  const read = async (path: string) => json(await request('GET', path));

  for (const resource of options.resources) {
    const collection = () => service.db.collection(resource.collection);
    /** The entity's events once `actions.length` have arrived and nothing more is due, checked to be those actions. */
    async function settledEvents(entityId: string, actions: string[]) {
      await arrived(service, entityId, actions.length);
      await service.settle();
      const events = eventsOf(service, entityId);
      const expected = actions.map((action, index) => [subjectOf(service, resource.entity, action), `${resource.entity}.${action}`, entityId, index + 1]);
      expect(summary(events)).toEqual(expected);
      return events;
    }

    describe(`${resource.entity} events`, () => {
      it('publishes created, updated and deleted once each, in order, with the version and the representation', async () => {
        const place = await resource.place(service);
        const { answered = (state: Body) => state, updateStatus = 200 } = place;
        const before = service.writes();
        const { id, created } = await create(service, place, place.body);
        const item = place.item(id);
        const createdState = await read(item);
        expect(createdState).toEqual(place.shown(id, place.body, 1));
        expect(json(created)).toEqual(answered(createdState));

        const unchanged = await request('PUT', item, place.body);
        expect(unchanged.statusCode).toBe(updateStatus);
        expect(unchanged.headers.etag).toBe('W/"1"'); // no write, no event
        const updated = await request('PUT', item, place.changed);
        expect(updated.statusCode).toBe(updateStatus);
        expect(updated.headers.etag).toBe('W/"2"');
        const updatedState = await read(item);
        expect(updatedState).toEqual(place.shown(id, place.changedKept ?? place.changed, 2));
        expect(json(updated)).toEqual(answered(updatedState));
        expect((await request('DELETE', item)).statusCode).toBe(204);
        expect(service.writes() - before, 'committed writes').toBe(3);

        const events = await settledEvents(place.entityId(id), ['created', 'updated', 'deleted']);
        // a delete carries the removed state, so that a consumer can drop what it derived from it
        expect(events.map(({ event }) => event.data)).toEqual([createdState, updatedState, updatedState]);
        for (const { event } of events) {
          expect(event.tenant).toBe(service.tenant);
          expect(event.id).toMatch(UUID_V7);
          expect(Date.parse(event.occurred_at)).not.toBeNaN();
        }
        expect(new Set(events.map(({ event }) => event.id)).size).toBe(3);
      });

      it('publishes one event for each write made with Prefer: return=minimal', async () => {
        const place = await resource.place(service);
        const before = service.writes();
        let id: string;
        // where only a POST creates, the create is a plain one and the update the minimal write
        if (place.newId === undefined) ({ id } = await create(service, place, place.body));
        else {
          id = place.newId();
          expect((await request('PUT', place.item(id), place.body, MINIMAL)).statusCode).toBe(204);
        }
        expect((await request('PUT', place.item(id), place.changed, MINIMAL)).statusCode).toBe(204);
        expect(service.writes() - before, 'committed writes').toBe(2);

        const events = await settledEvents(place.entityId(id), ['created', 'updated']);
        expect(events[0]?.event.data).toEqual(place.shown(id, place.body, 1));
        expect(events[1]?.event.data).toEqual(await read(place.item(id)));
        expect(events[1]?.event.data).toEqual(place.shown(id, place.changedKept ?? place.changed, 2));
      });

      it('publishes nothing for an unchanged PUT or a refused write (400, 404, 409, 412)', async () => {
        const place = await resource.place(service);
        const { updateStatus = 200 } = place;
        const { id } = await create(service, place, place.body);
        const item = place.item(id);
        expect((await request('PUT', item, place.changed)).headers.etag).toBe('W/"2"');
        const state = await read(item);
        await settledEvents(place.entityId(id), ['created', 'updated']);
        const seen = service.published().length;
        const before = service.writes();
        const documents = () => collection().countDocuments({ tenant: service.tenant });
        const documentsBefore = await documents();
        const listed = place.list === undefined ? undefined : (await request('GET', place.list)).body;
        const missing = place.item(place.newId?.() ?? randomUUID());
        const refusedId = place.newId?.();
        const another = place.another ?? place.body;
        const invalid = (body: Body) => ({ ...body, unknown_field: 1 });

        const writes: Answered[] = [
          [updateStatus, () => request('PUT', item, place.changed)],
          [400, () => request('PUT', item, invalid(place.changed))],
          [400, () => request('PUT', place.item(place.badId), another)],
          [404, () => request('DELETE', missing)],
          [412, () => request('PUT', item, place.changed, STALE)],
          [412, () => request('DELETE', item, undefined, STALE)],
          [412, () => request('PUT', missing, another, { 'if-match': '*' })],
          [412, () => request('PUT', missing, another, STALE)],
          ...(place.refusals?.(item) ?? []),
        ];
        // the representation a GET shows is unchanged too
        if (place.acceptsRepresentation !== false) writes.push([updateStatus, () => request('PUT', item, state)]);
        if (refusedId !== undefined) writes.push([400, () => request('PUT', place.item(refusedId), invalid(another))]);
        // ids the service chooses are never created by PUT
        else writes.push([404, () => request('PUT', missing, another)]);
        if (place.post === true) writes.push([400, () => request('POST', place.list ?? '', invalid(another))]);
        const { orphan } = place;
        if (orphan !== undefined) {
          writes.push([404, () => request('PUT', orphan.item(orphan.newId?.() ?? randomUUID()), another)]);
          if (orphan.post === true) writes.push([404, () => request('POST', orphan.list ?? '', another)]);
        }
        for (const [status, write] of writes) {
          const response = await write();
          if (status >= 400) expectProblemWithStatus(response, status);
          else expect(response.statusCode, response.body).toBe(status);
        }
        expect(service.writes() - before, 'committed writes').toBe(0);
        // events live only inside written documents: refused writes, creates included, leave neither
        expect(await documents()).toBe(documentsBefore);

        await service.settle();
        expect(publishedSince(service, seen)).toEqual([]);
        expect(await read(item)).toEqual(state);
        if (place.list !== undefined) expect((await request('GET', place.list)).body).toBe(listed);
      });

      it('leaves no event waiting in the outbox once published', async () => {
        await service.settle();
        const waiting = () => collection().countDocuments({ outbox: { $exists: true } });
        await waitFor('the outbox to be empty', async () => (await waiting()) === 0);
      });
    });
  }
  return () => service;
}
