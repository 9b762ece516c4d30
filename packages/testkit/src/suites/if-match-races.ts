import { describe, expect, it } from 'vitest';
import { useWorld } from '../service-helpers.js';
import { expectProblemWithStatus, json } from './service-under-test.js';
import { create, eventsOf, type Body, type Paths, type TenantService } from './tenant-service.js';

const WRITERS = 10;
const writers = Array.from({ length: WRITERS }, (_, writer) => writer);

export interface RacedResource<Service extends TenantService> {
  /** The entity of its events. */
  entity: string;
  /** A place of the test's own, where the caller chooses ids (PUT creates). */
  place(service: Service): Promise<RacePlace>;
  /** The n-th of many valid bodies, each unlike the others. */
  variant(n: number): Body;
}

export interface RacePlace extends Paths {
  newId(): string;
  /** What a GET shows of the item `id` holding `body` at `version`. */
  shown(id: string, body: Body, version: number): Body;
}

/**
 * Ten PUTs of one item at once: with the same If-Match exactly one wins and the others get 412; without
 * one the item is created once and each PUT makes a version of its own. Every version has one event.
 */
export function describeIfMatchRaces<Service extends TenantService>(options: {
  start(): Promise<Service>;
  resources: RacedResource<Service>[];
}): void {
  const { world: service } = useWorld(options.start);

  describe('concurrent conditional writes', () => {
    for (const { entity, place: placeOf, variant } of options.resources) {
      const versions = (count: number) => [
        [`${entity}.created`, 1],
        ...Array.from({ length: count - 1 }, (_, index) => [`${entity}.updated`, index + 2]),
      ];
      const typesAndVersions = (entityId: string) => eventsOf(service, entityId).map(({ event }) => [event.type, event.version]);

      it(`let exactly one of ten PUTs of a ${entity} with the same If-Match win`, async () => {
        const place = await placeOf(service);
        // the race is on a version past the first
        const { id } = await create(service, place, variant(WRITERS));
        const item = place.item(id);
        expect((await service.request('PUT', item, variant(WRITERS + 1))).headers.etag).toBe('W/"2"');

        const before = service.writes();
        const responses = await Promise.all(writers.map((writer) => service.request('PUT', item, variant(writer), { 'if-match': 'W/"2"' })));
        const statuses = responses.map((response) => response.statusCode);
        expect(statuses.filter((status) => status === 200), String(statuses)).toHaveLength(1);
        expect(statuses.filter((status) => status === 412), String(statuses)).toHaveLength(WRITERS - 1);
        for (const response of responses.filter(({ statusCode }) => statusCode === 412)) expectProblemWithStatus(response, 412);
        expect(service.writes() - before, 'committed writes').toBe(1);
        const winner = statuses.indexOf(200);

        const final = await service.request('GET', item);
        expect(final.headers.etag).toBe('W/"3"');
        expect(json(final)).toEqual(place.shown(id, variant(winner), 3));
        expect(json(responses[winner]!)).toEqual(json(final));
        await service.settle();
        expect(typesAndVersions(place.entityId(id))).toEqual(versions(3));
        expect(eventsOf(service, place.entityId(id))[2]?.event.data).toEqual(json(final));
      });

      it(`create a new ${entity} once when ten unconditional PUTs race: one 201, nine 200, each a version of its own`, async () => {
        const place = await placeOf(service);
        const id = place.newId();
        const responses = await Promise.all(writers.map((writer) => service.request('PUT', place.item(id), variant(writer))));
        const statuses = responses.map((response) => response.statusCode);
        expect(statuses.filter((status) => status === 201), String(statuses)).toHaveLength(1);
        expect(statuses.filter((status) => status === 200), String(statuses)).toHaveLength(WRITERS - 1);
        const written = responses.map((response) => json<{ version: number }>(response).version);
        expect([...written].sort((a, b) => a - b)).toEqual(writers.map((writer) => writer + 1));
        expect(written[statuses.indexOf(201)]).toBe(1);
        // the last write holds: the one that made the last version
        expect(json(await service.request('GET', place.item(id)))).toEqual(place.shown(id, variant(written.indexOf(WRITERS)), WRITERS));
        await service.settle();
        expect(typesAndVersions(place.entityId(id))).toEqual(versions(WRITERS));
      });
    }
  });
}
