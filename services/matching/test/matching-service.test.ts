import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useWorld } from '@rm/testkit/service-helpers';
import { atHomeBase, HOUR, inputs, startMatchingWorld } from './world.js';

const { world } = useWorld(startMatchingWorld);

const tomorrow = (hours = 0) => new Date(Date.UTC(2030, 0, 1) + hours * HOUR).toISOString();

describe('matching from events', () => {
  it('combines an available employee with a transport resource at the same home base', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const availabilityId = randomUUID();
    await world.publish(tenant, 'home-base', 'hb', inputs.homeBase('hb'));
    await world.publish(tenant, 'employee', 'e1', inputs.employee('e1', atHomeBase('hb')));
    await world.publish(tenant, 'availability', `e1/${availabilityId}`, inputs.availability('e1', availabilityId, tomorrow()));
    await world.publish(tenant, 'transport-resource', 'tr1', inputs.transportResource('tr1', atHomeBase('hb')));
    const combinations = await world.until(tenant, 'a combination', (found) => found.size === 1);
    expect(combinations.get(availabilityId)).toMatchObject({ employee_id: 'e1', transport_resource_ids: ['tr1'], linked: false });
  });
});
