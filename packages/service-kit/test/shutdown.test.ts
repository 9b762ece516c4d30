import { describe, expect, it } from 'vitest';
import { installGracefulShutdown } from '../src/index.js';
import { BASE_PATH, buildTestService, deferred } from './helpers.js';

describe('installGracefulShutdown', () => {
  it('stops being ready, lets the in-flight request finish, then runs the steps in order', async () => {
    const events: string[] = [];
    const entered = deferred();
    const release = deferred();
    const { app, bearer, logs } = await buildTestService(async (api) => {
      api.get('/slow', async () => {
        entered.resolve();
        await release.promise;
        events.push('request finished');
        return { done: true };
      });
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const inFlight = fetch(`${address}${BASE_PATH}/slow`, { headers: await bearer() });
    await entered.promise;

    const shutdown = installGracefulShutdown({
      app,
      logger: app.log,
      graceMs: 20_000,
      signals: [],
      steps: [
        { name: 'consumers', run: async () => void events.push('consumers stopped') },
        { name: 'nats', run: async () => void events.push('nats drained') },
        { name: 'mongodb', run: async () => void events.push('mongodb closed') },
      ],
      onTimeout: () => events.push('timed out'),
    });
    const outcome = shutdown('test');
    const readiness = await app.inject({ url: '/readyz' });
    expect(readiness.statusCode).toBe(503);
    release.resolve();

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ done: true });
    await expect(outcome).resolves.toBe('clean');
    expect(events).toEqual(['request finished', 'consumers stopped', 'nats drained', 'mongodb closed']);
    expect(logs.records().filter((record) => record.msg === 'shutdown step done').map((record) => record.step)).toEqual([
      'http server',
      'consumers',
      'nats',
      'mongodb',
    ]);
    // A second trigger joins the first shutdown.
    await expect(shutdown('again')).resolves.toBe('clean');
  });

  it('logs a failing step and still runs the next ones', async () => {
    const { app, logs } = await buildTestService();
    const events: string[] = [];
    const shutdown = installGracefulShutdown({
      app,
      logger: app.log,
      graceMs: 20_000,
      signals: [],
      steps: [
        { name: 'relay', run: async () => Promise.reject(new Error('relay refused to stop')) },
        { name: 'mongodb', run: async () => void events.push('mongodb closed') },
      ],
      onTimeout: () => events.push('timed out'),
    });
    await expect(shutdown()).resolves.toBe('failed');
    expect(events).toEqual(['mongodb closed']);
    expect(logs.records().find((record) => record.msg === 'shutdown step failed')).toMatchObject({ step: 'relay', err: { message: 'relay refused to stop' } });
  });

  it('gives up after the grace period and calls onTimeout', async () => {
    const { app } = await buildTestService();
    const events: string[] = [];
    const shutdown = installGracefulShutdown({
      app,
      logger: app.log,
      graceMs: 200,
      signals: [],
      steps: [
        { name: 'stuck consumer', run: () => new Promise<void>(() => {}) },
        { name: 'mongodb', run: async () => void events.push('mongodb closed') },
      ],
      onTimeout: () => events.push('timed out'),
    });
    await expect(shutdown()).resolves.toBe('timed-out');
    expect(events).toEqual(['timed out']);
  });

  it('starts on the first signal and gives up on the second', async () => {
    const { app } = await buildTestService();
    const events: string[] = [];
    const stuck = deferred();
    const shutdown = installGracefulShutdown({
      app,
      logger: app.log,
      graceMs: 60_000,
      signals: ['SIGUSR2'],
      steps: [{ name: 'stuck consumer', run: () => stuck.promise }],
      onTimeout: () => events.push('timed out'),
    });
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(app.server.listening).toBe(false);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
    process.emit('SIGUSR2', 'SIGUSR2');
    await expect(shutdown()).resolves.toBe('timed-out');
    expect(events).toEqual(['timed out']);
    expect(process.listenerCount('SIGUSR2')).toBe(0);
    stuck.resolve();
  });
});
