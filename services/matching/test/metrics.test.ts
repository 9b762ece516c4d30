import { randomUUID } from 'node:crypto';
import { parseMetricSamples, waitFor, type MetricSamples } from '@rm/testkit';
import { describe, expect, it } from 'vitest';
import { useWorld } from '@rm/testkit/service-helpers';
import { tenantLabeller } from '../src/metrics.js';
import { atHomeBase, HOUR, inputs, startMatchingWorld } from './world.js';

const { world } = useWorld(startMatchingWorld);

async function scrape(): Promise<MetricSamples> {
  const response = await world.harness.app.inject({ url: '/metrics' });
  expect(response.statusCode).toBe(200);
  return parseMetricSamples(response.body);
}

describe('the matching engine\'s metrics', () => {
  // Before, the label was the tenant id, which /metrics showed to anyone without a token.
  it('time each event until the combinations reflect it, and count each tenant\'s snapshots and combinations under a label that is not its id', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const label = tenantLabeller(world.harness.env.variables.CURSOR_SECRET!)(tenant);
    const lagCount = async () => (await scrape()).value('rm_matching_convergence_lag_seconds_count', { service: 'matching' }) ?? 0;
    const before = await lagCount();
    expect((await scrape()).value('rm_matching_combinations', { tenant: label })).toBeUndefined();

    await world.publish(tenant, 'home-base', 'hb', inputs.homeBase('hb'));
    await world.publish(tenant, 'employee', 'e1', inputs.employee('e1', atHomeBase('hb')));
    const availabilityId = randomUUID();
    const start = new Date(Date.UTC(2030, 0, 1) + HOUR).toISOString();
    await world.publish(tenant, 'availability', `e1/${availabilityId}`, inputs.availability('e1', availabilityId, start));
    await world.publish(tenant, 'transport-resource', 'tr1', inputs.transportResource('tr1', atHomeBase('hb')));
    await world.until(tenant, 'a combination', (found) => found.size === 1);

    const samples = await waitFor('the four events to be counted', async () => {
      const found = await scrape();
      return (found.value('rm_matching_convergence_lag_seconds_count') ?? 0) >= before + 4 ? found : undefined;
    });
    expect(samples.value('rm_matching_snapshots', { tenant: label })).toBe(1);
    expect(samples.value('rm_matching_combinations', { tenant: label })).toBe(1);
    expect((await world.harness.app.inject({ url: '/metrics' })).body).not.toContain(tenant);
    // the partition consumers' own metrics, labelled by partition
    expect(samples.labels('rm_consumer_pending_messages').map((labels) => labels.consumer)).toContain('matching-p0');
    expect(samples.value('rm_consumer_events_total', { outcome: 'applied' })).toBeGreaterThanOrEqual(4);
  });
});
