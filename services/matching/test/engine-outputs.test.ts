// The engine's outputs: the order in which it writes them, seen by a reader of the database at every
// moment (a combination only ever refers to an AvailableEmployee snapshot that is stored), and the events
// it publishes itself, again after a publish that failed; and a tenant too large to match.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope, OutboxEntry } from '@rm/contracts';
import { createLogger } from '@rm/service-kit';
import { createStore, type ResourceCollection } from '@rm/store';
import { connectTestMongo, waitFor, type TestMongo } from '@rm/testkit';
import { createMatchingEngine, type MatchingEngine } from '../src/engine.js';
import { createInputStore } from '../src/store/inputs.js';
import { createOutputs, type Outputs } from '../src/store/outputs.js';
import { createUnpublishedMarks, type UnpublishedMarks } from '../src/store/unpublished.js';
import { atHomeBase, HOUR, inputEvent, inputs } from './world.js';

let mongo: TestMongo;
let engine: MatchingEngine;
/** What a reader could find missing: each a combination stored without its snapshot. */
const orphans: string[] = [];
/** The events the engine published, in order. */
const published: OutboxEntry[] = [];
/** Events the engine tried to publish while publishing failed. */
const unpublished: OutboxEntry[] = [];
let publishing: 'works' | 'fails' = 'works';
/** Held by a test: publishing waits for it, which keeps a batch's writes under way. */
let publishingHeld: Promise<void> = Promise.resolve();
let marks: UnpublishedMarks;
/** An engine that refuses tenants of more than four inputs, over the same collections. */
let smallEngine: () => MatchingEngine;
let recordedInputs: (tenant: string) => Promise<unknown[] | undefined>;

beforeAll(async () => {
  mongo = await connectTestMongo('matching_write_order');
  const store = createStore(mongo.db, { maxEventBytes: 1024 ** 2 });
  const collections = { inputs: createInputStore(store), outputs: createOutputs(store), unpublished: createUnpublishedMarks(store) };
  await store.declareIndexes();
  marks = collections.unpublished;
  const logger = createLogger({ level: 'silent', name: 'matching' });
  recordedInputs = (tenant) => collections.inputs.ofTenant(tenant);
  smallEngine = () =>
    createMatchingEngine({ ...collections, publish: async (events) => void published.push(...events), logger, maxInputs: 4 });
  engine = createMatchingEngine({
    inputs: collections.inputs,
    outputs: watchedForOrphans(collections.outputs),
    unpublished: collections.unpublished,
    publish: async (events) => {
      await publishingHeld;
      if (publishing === 'works') published.push(...events);
      else {
        unpublished.push(...events);
        throw new Error('nats: timeout');
      }
    },
    logger,
  });
});

afterAll(async () => {
  await engine?.close();
  await mongo?.close();
});

/**
 * The outputs, with a check of each write as it starts against the writes that have ended: a combination
 * written while its snapshot is not yet stored, or a snapshot removed while its combination still is,
 * leaves a combination a reader could not follow to its available employee.
 */
function watchedForOrphans(outputs: Outputs): Outputs {
  const storedSnapshots = new Set<string>();
  const storedCombinations = new Set<string>();
  const watched = <Body>(collection: ResourceCollection<Body>, stored: Set<string>, check: (key: string, live: boolean) => void) => ({
    ...collection,
    async writeKnown(...[scope, writes]: Parameters<ResourceCollection<Body>['writeKnown']>) {
      for (const { key, body } of writes) check(key, body !== undefined);
      const written = await collection.writeKnown(scope, writes);
      for (const { key, body } of writes) (body === undefined ? stored.delete(key) : stored.add(key));
      return written;
    },
  });
  return {
    availableEmployees: watched(outputs.availableEmployees, storedSnapshots, (key, live) => {
      if (!live && storedCombinations.has(key)) orphans.push(`snapshot ${key} removed before its combination`);
    }),
    combinations: watched(outputs.combinations, storedCombinations, (key, live) => {
      if (live && !storedSnapshots.has(key)) orphans.push(`combination ${key} written before its snapshot`);
    }),
  };
}

/** Hands a batch to the engine and waits until it is written: what the consumer waits for to acknowledge it. */
async function handled(engine: MatchingEngine, events: readonly { event: EventEnvelope }[]): Promise<void> {
  await (await engine.handleBatch(events, 0)).completed;
}

const versions = new Map<string, number>();
function event(tenant: string, entity: string, entityId: string, data: Record<string, unknown>, deleted = false): { event: EventEnvelope } {
  const key = `${tenant}|${entity}|${entityId}`;
  const version = (versions.get(key) ?? 0) + 1;
  versions.set(key, version);
  const action = deleted ? 'deleted' : version === 1 ? 'created' : 'updated';
  return { event: inputEvent(tenant, entity, entityId, data, { action, version }) };
}

describe('the engine writing its outputs', () => {
  it('stores a snapshot before its combination, and removes the combination before its snapshot', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const start = new Date(Date.UTC(2030, 0, 1) + 8 * HOUR).toISOString();
    const availabilities = Array.from({ length: 3 }, (_, index) => ({ employee: `e${index}`, id: randomUUID() }));
    const availability = ({ employee, id }: { employee: string; id: string }, deleted = false) =>
      event(tenant, 'availability', `${employee}/${id}`, inputs.availability(employee, id, start), deleted);
    await handled(engine,
      [
        event(tenant, 'home-base', 'hb', inputs.homeBase('hb')),
        ...availabilities.flatMap(({ employee }, index) => [
          event(tenant, 'employee', employee, inputs.employee(employee, atHomeBase('hb'))),
          event(tenant, 'transport-resource', `tr${index}`, inputs.transportResource(`tr${index}`, atHomeBase('hb'))),
        ]),
      ],
    );
    await handled(engine, availabilities.map((each) => availability(each)));
    expect(engine.counts()).toEqual([{ tenant, snapshots: 3, combinations: 3 }]);
    await handled(engine, availabilities.slice(1).map((each) => availability(each, true)));
    expect(engine.counts()).toEqual([{ tenant, snapshots: 1, combinations: 1 }]);
    expect(orphans).toEqual([]);
    // the events go out in the order of the writes
    const [kept, ...gone] = availabilities.map(({ id }) => id);
    const eventsOf = (id: string | undefined) => published.filter((event) => event.entity_id === id).map((event) => event.type);
    expect(eventsOf(kept)).toEqual(['available-employee.created', 'resource-combination.created']);
    for (const id of gone) {
      expect(eventsOf(id)).toEqual(['available-employee.created', 'resource-combination.created', 'resource-combination.deleted', 'available-employee.deleted']);
    }
  });
});

describe('the engine publishing its outputs\' events', () => {
  it('marks the tenant before it writes, and clears the mark once its events are out and no write came for a while', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const start = new Date(Date.UTC(2030, 0, 1) + 8 * HOUR).toISOString();
    const availabilityId = randomUUID();
    await handled(engine,
      [
        event(tenant, 'home-base', 'hb', inputs.homeBase('hb')),
        event(tenant, 'employee', 'e1', inputs.employee('e1', atHomeBase('hb'))),
        event(tenant, 'availability', `e1/${availabilityId}`, inputs.availability('e1', availabilityId, start)),
      ],
    );
    expect(published.filter((one) => one.tenant === tenant).map((one) => one.type)).toEqual(['available-employee.created']);
    expect(await marks.of(tenant)).toBeInstanceOf(Date);
    await waitFor('the mark to be cleared', async () => (await marks.of(tenant)) === undefined);
  });

  it('publishes again, under the same ids, what it wrote while publishing failed', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const start = new Date(Date.UTC(2030, 0, 1) + 8 * HOUR).toISOString();
    const setUp = [
      event(tenant, 'home-base', 'hb', inputs.homeBase('hb')),
      event(tenant, 'employee', 'e1', inputs.employee('e1', atHomeBase('hb'))),
      event(tenant, 'transport-resource', 'tr1', inputs.transportResource('tr1', atHomeBase('hb'))),
    ];
    const availabilityId = randomUUID();
    const shift = event(tenant, 'availability', `e1/${availabilityId}`, inputs.availability('e1', availabilityId, start));
    await handled(engine, setUp);

    publishing = 'fails';
    await expect(handled(engine, [shift])).rejects.toThrow('nats: timeout');
    const lost = unpublished.filter((one) => one.tenant === tenant);
    expect(lost.map((one) => one.type)).toEqual(['available-employee.created', 'resource-combination.created']);
    expect(await marks.of(tenant)).toBeInstanceOf(Date);

    // the batch comes again (it was not acknowledged): the tenant is loaded afresh and publishes what was written
    publishing = 'works';
    await handled(engine, [shift]);
    const again = published.filter((one) => one.tenant === tenant);
    expect(again.map(({ trace: _, ...one }) => one)).toEqual(lost.map(({ trace: _, ...one }) => one));
    expect(await marks.of(tenant)).toBeUndefined();
    expect(engine.counts()).toContainEqual({ tenant, snapshots: 1, combinations: 1 });
  });
});

describe('the engine deciding a batch while the one before is written', () => {
  it('fails the batches decided on a write that failed, and decides them again from the database', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const start = new Date(Date.UTC(2030, 0, 1) + 8 * HOUR).toISOString();
    await handled(engine, [
      event(tenant, 'home-base', 'hb', inputs.homeBase('hb')),
      ...['1', '2'].flatMap((n) => [
        event(tenant, 'employee', `e${n}`, inputs.employee(`e${n}`, atHomeBase('hb'))),
        event(tenant, 'transport-resource', `tr${n}`, inputs.transportResource(`tr${n}`, atHomeBase('hb'))),
      ]),
    ]);
    const [firstId, secondId] = [randomUUID(), randomUUID()];
    const firstShift = event(tenant, 'availability', `e1/${firstId}`, inputs.availability('e1', firstId, start));
    const secondShift = event(tenant, 'availability', `e2/${secondId}`, inputs.availability('e2', secondId, start));

    let release = () => {};
    publishingHeld = new Promise((resolve) => (release = resolve));
    publishing = 'fails';
    const first = await engine.handleBatch([firstShift], 0);
    let firstEnded = false;
    const ended = first.completed.finally(() => (firstEnded = true));
    const second = await engine.handleBatch([secondShift], 0);
    // decided while the first batch's events wait to be published
    expect(firstEnded).toBe(false);
    const outcomes = Promise.allSettled([ended, second.completed]);
    release();
    const [firstOutcome, secondOutcome] = await outcomes;
    expect(firstOutcome).toMatchObject({ status: 'rejected', reason: new Error('nats: timeout') });
    // built on the first's outputs, none of its writes ran
    expect(secondOutcome).toMatchObject({ status: 'rejected', reason: new Error('nats: timeout') });
    expect(unpublished.filter((one) => one.tenant === tenant).map((one) => [one.type, one.entity_id])).toEqual([
      ['available-employee.created', firstId],
      ['resource-combination.created', firstId],
    ]);

    // both come again (neither was acknowledged)
    publishing = 'works';
    await handled(engine, [firstShift]);
    await handled(engine, [secondShift]);
    expect(published.filter((one) => one.tenant === tenant).map((one) => [one.type, one.entity_id])).toEqual([
      ['available-employee.created', firstId],
      ['resource-combination.created', firstId],
      ['available-employee.created', secondId],
      ['resource-combination.created', secondId],
    ]);
    expect(engine.counts()).toContainEqual({ tenant, snapshots: 2, combinations: 2 });
  });
});

describe('a tenant with more inputs than the engine takes', () => {
  it('is refused: its inputs are recorded, its outputs stay as they were, and a replica loading it refuses it too', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const start = new Date(Date.UTC(2030, 0, 1) + 8 * HOUR).toISOString();
    const availability = (employee: string) => {
      const id = randomUUID();
      return event(tenant, 'availability', `${employee}/${id}`, inputs.availability(employee, id, start));
    };
    const engine = smallEngine();
    await handled(engine,
      [
        event(tenant, 'home-base', 'hb', inputs.homeBase('hb')),
        event(tenant, 'employee', 'e1', inputs.employee('e1', atHomeBase('hb'))),
        event(tenant, 'transport-resource', 'tr1', inputs.transportResource('tr1', atHomeBase('hb'))),
        availability('e1'),
      ],
    );
    expect(engine.counts()).toEqual([{ tenant, snapshots: 1, combinations: 1 }]);
    expect(engine.refused()).toEqual([]);

    await handled(engine, [event(tenant, 'employee', 'e2', inputs.employee('e2', atHomeBase('hb'))), availability('e2')]);
    expect(engine.refused()).toEqual([tenant]);
    expect(engine.counts()).toEqual([{ tenant, snapshots: 1, combinations: 1 }]);
    // nothing is lost: what comes while it is refused is recorded as well
    await handled(engine, [availability('e2')]);
    expect(await recordedInputs(tenant)).toHaveLength(7);

    const taker = smallEngine();
    await handled(taker, [availability('e1')]);
    expect(taker.refused()).toEqual([tenant]);
    expect(await recordedInputs(tenant)).toHaveLength(8);
    await engine.close();
    await taker.close();
  });
});
