import { MongoClient } from 'mongodb';
import { connectTestMongo, parseMetricSamples, type TestMongo } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsRegistry, METRICS_URL, mongoReadiness, NotFound, upGauge } from '../src/index.js';
import { BASE_PATH, buildTestService } from './helpers.js';

describe('/metrics', () => {
  it('counts and times requests by route pattern and status, with `unmatched` for requests no route took', async () => {
    const registry = createMetricsRegistry({ service: 'kit-test', version: '1.2.3' });
    const { app, bearer } = await buildTestService(
      async (api) => {
        api.get<{ Params: { id: string } }>('/thing/:id', async (request) => {
          if (request.params.id === 'missing') throw new NotFound('no such thing');
          return { id: request.params.id };
        });
      },
      { metrics: registry },
    );
    const headers = await bearer();
    expect((await app.inject({ url: `${BASE_PATH}/thing/a`, headers })).statusCode).toBe(200);
    expect((await app.inject({ url: `${BASE_PATH}/thing/missing`, headers })).statusCode).toBe(404);
    expect((await app.inject({ url: `${BASE_PATH}/thing/b` })).statusCode).toBe(401);
    expect((await app.inject({ url: '/nowhere/42' })).statusCode).toBe(404);

    // no token needed, like /healthz
    const scraped = await app.inject({ url: METRICS_URL });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.headers['content-type']).toBe(registry.contentType);
    const samples = parseMetricSamples(scraped.body);
    const route = `${BASE_PATH}/thing/:id`;
    expect(samples.value('http_requests_total', { service: 'kit-test', method: 'GET', route, status_code: '200' })).toBe(1);
    expect(samples.value('http_requests_total', { route, status_code: '404' })).toBe(1);
    expect(samples.value('http_requests_total', { route, status_code: '401' })).toBe(1);
    expect(samples.value('http_requests_total', { route: 'unmatched', status_code: '404' })).toBe(1);
    expect(samples.value('http_request_duration_seconds_count', { route, status_code: '404' })).toBe(1);
    // never the raw URL
    expect(samples.labels('http_requests_total').map((labels) => labels.route)).not.toContain('/nowhere/42');
    expect(samples.value('rm_build_info', { service: 'kit-test', version: '1.2.3' })).toBe(1);
    expect(samples.value('process_cpu_user_seconds_total', { service: 'kit-test' })).toBeGreaterThan(0);
    expect(samples.labels('nodejs_heap_size_used_bytes')).toEqual([{ service: 'kit-test' }]);
    await app.close();
  });

  it('is not served when the service has no registry', async () => {
    const { app } = await buildTestService();
    expect((await app.inject({ url: METRICS_URL })).statusCode).toBe(404);
    await app.close();
  });
});

describe('an up gauge', () => {
  let mongo: TestMongo;
  beforeAll(async () => {
    mongo = await connectTestMongo('service_kit_metrics');
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it('is 1 for a dependency that answers, and 0 for one that fails or does not answer in time', async () => {
    const registry = createMetricsRegistry({ service: 'kit-test', version: '1' });
    const unreachable = new MongoClient('mongodb://127.0.0.1:9/', { serverSelectionTimeoutMS: 300 });
    const timeoutMs = 500;
    upGauge({ registry, name: 'test_up_answering', help: 'a', check: mongoReadiness(mongo.db), timeoutMs });
    upGauge({ registry, name: 'test_up_unreachable', help: 'b', check: mongoReadiness(unreachable.db('nothing')), timeoutMs });
    upGauge({ registry, name: 'test_up_hanging', help: 'c', check: () => new Promise(() => {}), timeoutMs });
    const samples = parseMetricSamples(await registry.metrics());
    expect(samples.value('test_up_answering')).toBe(1);
    expect(samples.value('test_up_unreachable')).toBe(0);
    expect(samples.value('test_up_hanging')).toBe(0);
    await unreachable.close();
  });
});
