import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import type { Db } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordedEvents } from '../record-events.js';
import { useWorld } from '../service-helpers.js';
import { uniqueName } from '../unique-name.js';
import { waitFor } from '../wait-for.js';
import { useBuiltService, type BuiltServiceOptions, type Call } from './built-service.js';
import { subjectOf, type Body, type Event, type Published, type TenantService } from './tenant-service.js';

/** One kind of sub-resource that a parent's delete removes. */
export interface CascadedChild {
  /** The entity of its events. */
  entity: string;
  /** Its list below the parent: `<parent path>/<id>/<segment>`. */
  segment: string;
  collection: string;
  /** The field of its representation that names the parent. */
  parentField: string;
  /** The n-th of many valid bodies, none in conflict with another under the same parent. */
  body(n: number): Body;
  /** Seeded by the hundreds in the crash test, so that its cascade takes several rounds (at most 200 a round). */
  bulk?: boolean;
}

export interface CascadeOptions<Service extends TenantService> {
  /** The harnessed service; its settle() writes a parent. */
  start(): Promise<Service>;
  parent: { entity: string; path: string; collection: string; idPrefix: string; body: Body };
  children: CascadedChild[];
  /** The built service that the crash test kills, and the recording of its tenant's events there. */
  crash: Pick<BuiltServiceOptions, 'main' | 'packageName' | 'prefix'> & { record(tenant: string): Promise<RecordedEvents<Event>> };
}

/** An item that seeding created. */
interface Item {
  child: CascadedChild;
  childId: string;
}

/** Sizes of the bulk kind in the crash test: a larger one where the cascade outran the kill. */
const CRASH_ROUNDS = [450, 900, 1800];

/**
 * A parent's delete removes its sub-resources, each with one deleted event, and nothing of another
 * parent's, also when writes race it; created again, the parent has none; and a cascade cut short by a
 * crash is finished after a restart.
 */
export function describeCascades<Service extends TenantService>(options: CascadeOptions<Service>): void {
  const { parent, children } = options;
  const parentPath = (id: string) => `${parent.path}/${id}`;
  const listPath = (id: string, child: CascadedChild) => `${parentPath(id)}/${child.segment}`;
  const newParent = () => `${parent.idPrefix}-${randomUUID()}`;
  const deletedType = (child: CascadedChild) => `${child.entity}.deleted`;
  const idOf = (response: { body: unknown }) => (response.body as { id: string }).id;
  /** The deleted events the items of the parent `id` must get, as `<type> <entity id>`, sorted. */
  const deletesOf = (id: string, items: Item[]) => items.map(({ child, childId }) => `${deletedType(child)} ${id}/${childId}`).sort();

  /**
   * Creates the parent and `count(child)` of each kind, one at a time per kind (each kind commits through
   * a guard of its own, so the kinds go side by side).
   */
  async function seed(call: Call, id: string, count: (child: CascadedChild) => number): Promise<Item[]> {
    expect((await call('PUT', parentPath(id), parent.body)).status).toBe(201);
    const created = await Promise.all(
      children.map(async (child) => {
        const items: Item[] = [];
        for (let n = 0; n < count(child); n += 1) {
          const response = await call('POST', listPath(id, child), child.body(n));
          expect(response.status, JSON.stringify(response.body)).toBe(201);
          items.push({ child, childId: idOf(response) });
        }
        return items;
      }),
    );
    return created.flat();
  }

  /** The deleted events under the parent (of any type: an unexpected one must show), as `<type> <entity id>`, sorted. */
  const deletedChildren = (published: Published[], id: string) =>
    published
      .filter(({ event }) => event.type.endsWith('.deleted') && event.entity_id.startsWith(`${id}/`))
      .map(({ event }) => `${event.type} ${event.entity_id}`)
      .sort();

  /** The parent's sub-resources not yet removed, counted in the database. */
  async function liveChildren(db: Db, tenant: string, id: string): Promise<number> {
    const live = { tenant, parent: id, deleted: { $exists: false } };
    const counts = await Promise.all(children.map(({ collection }) => db.collection(collection).countDocuments(live)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** The parent's document: live, a tombstone, `cascading` while its sub-resources are being removed. */
  const parentDocument = (db: Db, tenant: string, id: string) => db.collection(parent.collection).findOne({ tenant, key: id });

  /** Answers of the parent and of its lists. */
  const statuses = (call: Call, id: string) =>
    Promise.all([parentPath(id), ...children.map((child) => listPath(id, child))].map(async (path) => (await call('GET', path)).status));
  const gone = () => [404, ...children.map(() => 404)];

  describe(`${parent.entity} delete`, () => {
    const { world: service } = useWorld(options.start);
    const call: Call = async (method, path, body) => {
      const response = await service.request(method, path, body);
      return { status: response.statusCode, body: response.body === '' ? undefined : JSON.parse(response.body) };
    };
    const lists = (id: string) => Promise.all(children.map(async (child) => (await call('GET', listPath(id, child))).body));

    it(`removes all its sub-resources, each with one deleted event carrying it, and leaves another ${parent.entity} alone`, async () => {
      const [removed, kept] = [newParent(), newParent()];
      const expected = deletesOf(removed, await seed(call, removed, () => 12));
      const keptItems = await seed(call, kept, () => 3);
      const keptLists = await lists(kept);
      expect(keptLists.flat()).toHaveLength(keptItems.length);
      // the counts below read the right documents: before the delete they see every sub-resource
      expect(await liveChildren(service.db, service.tenant, removed)).toBe(expected.length);

      expect((await call('DELETE', parentPath(removed))).status).toBe(204);
      expect(await statuses(call, removed)).toEqual(gone());
      expect(await liveChildren(service.db, service.tenant, removed)).toBe(0);
      expect(await parentDocument(service.db, service.tenant, removed)).toMatchObject({ deleted: true });
      expect((await parentDocument(service.db, service.tenant, removed))?.cascading).toBeUndefined();

      await waitFor('the deleted events', async () => deletedChildren(service.published(), removed).length >= expected.length);
      // any duplicate would have arrived by the end of settle()
      await service.settle();
      expect(deletedChildren(service.published(), removed)).toEqual(expected);
      const parentEvents = service.published().filter(({ event }) => event.entity_id === removed);
      expect(parentEvents.map(({ event }) => event.type)).toEqual([`${parent.entity}.created`, `${parent.entity}.deleted`]);
      // each deleted event carries the removed sub-resource, on the tenant's subject
      for (const child of children) {
        const deleted = service.published().filter(({ event }) => event.type === deletedType(child) && event.entity_id.startsWith(`${removed}/`));
        for (const { subject, event } of deleted) {
          expect(subject).toBe(subjectOf(service, child.entity, 'deleted'));
          expect(event.data).toMatchObject({ id: event.entity_id.split('/')[1], [child.parentField]: removed, version: 1 });
          expect(event.version).toBe(2);
        }
      }

      expect(await lists(kept)).toEqual(keptLists);
      expect(deletedChildren(service.published(), kept)).toEqual([]);
    });

    it('leaves no sub-resource behind when writes race the delete, and each one created gets its deleted event', async () => {
      const id = newParent();
      const seeded = await seed(call, id, () => 20);
      // the kinds in turn, on bodies of their own
      const child = (n: number) => children[n % children.length]!;
      const post = (n: number) => call('POST', listPath(id, child(n)), child(n).body(100 + n));
      const before = Array.from({ length: 20 }, (_, n) => post(n));
      const deleted = call('DELETE', parentPath(id));
      const after = Array.from({ length: 20 }, (_, n) => post(20 + n));
      const posted = await Promise.all([...before, ...after]);
      expect((await deleted).status).toBe(204);
      for (const { status } of posted) expect([201, 404]).toContain(status);
      const created = posted.flatMap((response, n) => (response.status === 201 ? [{ child: child(n), childId: idOf(response) }] : []));

      expect(await liveChildren(service.db, service.tenant, id)).toBe(0);
      expect(await statuses(call, id)).toEqual(gone());
      const expected = deletesOf(id, [...seeded, ...created]);
      await waitFor('the deleted events', async () => deletedChildren(service.published(), id).length >= expected.length);
      await service.settle();
      expect(deletedChildren(service.published(), id)).toEqual(expected);
    });

    it(`created again, the ${parent.entity} starts with no sub-resources`, async () => {
      const id = newParent();
      const seeded = await seed(call, id, () => 2);
      expect((await call('DELETE', parentPath(id))).status).toBe(204);
      expect((await call('PUT', parentPath(id), parent.body)).status).toBe(201);
      for (const child of children) expect(await call('GET', listPath(id, child))).toEqual({ status: 200, body: [] });
      // nor is an old id there
      for (const { child, childId } of seeded) expect((await call('GET', `${listPath(id, child)}/${childId}`)).status).toBe(404);
    });
  });

  describe('a crash in the middle of a cascade', () => {
    const tenant = uniqueName('tenant');
    // maintenance as often as allowed; cascades are finished once untouched for the store's 10 s
    const built = useBuiltService({ ...options.crash, tenant, variables: () => ({ MAINTENANCE_INTERVAL_MS: '1000' }) });
    let recording: RecordedEvents<Event> | undefined;
    afterAll(async () => {
      await recording?.close();
    });
    const published = () => recording?.received ?? [];

    /** Starts the service, and the recording once the first has declared its stream. */
    async function start(): Promise<ChildProcess> {
      const child = await built.start();
      recording ??= await options.crash.record(tenant);
      return child;
    }

    /**
     * Sends the DELETE and SIGKILLs the service once the cascade has removed some sub-resources; true if
     * the crash left it half done (the tombstone still `cascading`, some sub-resources still there).
     */
    async function deleteAndKill(child: ChildProcess, id: string, total: number): Promise<boolean> {
      const db = built.db();
      const halfDone = async (left: (live: number) => boolean) =>
        (await parentDocument(db, tenant, id))?.cascading === true && left(await liveChildren(db, tenant, id));
      void built.call('DELETE', parentPath(id)).catch(() => undefined); // the kill cuts it short
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(5)) {
        if (await halfDone((live) => live < total)) break;
      }
      child.kill('SIGKILL');
      await once(child, 'exit');
      await sleep(500); // the database may still finish what the service had sent
      return halfDone((live) => live > 0);
    }

    it('finishes it after a restart: every sub-resource removed, each with its deleted event', async () => {
      let id = '';
      let expected: string[] = [];
      let halfDone = false;
      for (const size of CRASH_ROUNDS) {
        const child = await start();
        id = newParent();
        expected = deletesOf(id, await seed(built.call, id, (kind) => (kind.bulk === true ? size : 20)));
        halfDone = await deleteAndKill(child, id, expected.length);
        if (halfDone) break;
      }
      expect(halfDone, 'the service was killed in the middle of the cascade').toBe(true);
      const db = built.db();
      // the parent is gone for callers even before the cascade is finished
      expect((await parentDocument(db, tenant, id))?.deleted).toBe(true);

      // the same database: maintenance finishes the cascade once it is stale
      await start();
      expect(await statuses(built.call, id)).toEqual(gone());
      await waitFor(
        'the cascade to be finished',
        async () => (await liveChildren(db, tenant, id)) === 0 && (await parentDocument(db, tenant, id))?.cascading === undefined,
        60_000,
      );
      expect(await parentDocument(db, tenant, id)).toMatchObject({ deleted: true });
      const arrived = () => [...new Set(deletedChildren(published(), id))];
      await waitFor('a deleted event of every sub-resource', async () => arrived().length >= expected.length, 30_000);
      // after a crash an event may come again, but none may be missing and none may be for another
      expect(arrived()).toEqual(expected);
      expect(published().some(({ event }) => event.type === `${parent.entity}.deleted` && event.entity_id === id)).toBe(true);
      expect(await statuses(built.call, id)).toEqual(gone());
    }, 240_000);
  });
}
