import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { connectTestNats, uniqueName, type TestNats } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConsumerDeclarationError,
  declareConsumer,
  declareServiceStream,
  declareStream,
  StreamDeclarationError,
} from '../src/index.js';

describe('stream and consumer declarations', () => {
  let nats: TestNats;
  let jsm: JetStreamManager;
  const streams: string[] = [];

  beforeAll(async () => {
    nats = await connectTestNats();
    jsm = await jetstreamManager(nats.nc);
  });

  afterAll(async () => {
    await Promise.all(streams.map((name) => jsm.streams.delete(name)));
    await nats?.close();
  });

  function newStreamName(): string {
    const name = uniqueName('DECL');
    streams.push(name);
    return name;
  }

  it('declares a file-backed stream with explicit limits and a two-minute duplicate window', async () => {
    const name = newStreamName();
    const { config } = await declareStream(jsm, { name, subjects: [`${name}.>`] });
    expect(config).toMatchObject({
      storage: 'file',
      retention: 'limits',
      discard: 'old',
      duplicate_window: nanos(2 * 60 * 1000),
      max_age: nanos(7 * 24 * 60 * 60 * 1000),
      max_bytes: 1024 ** 3,
      max_msg_size: 1024 ** 2,
    });
    expect(config.max_msgs).toBeGreaterThan(0);
  });

  it('declares the same stream again without touching it, and updates a changed one in place', async () => {
    const name = newStreamName();
    await declareStream(jsm, { name, subjects: [`${name}.>`] });
    await jsm.jetstream().publish(`${name}.kept`, 'still here');

    const again = await declareStream(jsm, { name, subjects: [`${name}.>`] });
    expect(again.state.messages).toBe(1);

    const changed = await declareStream(jsm, { name, subjects: [`${name}.>`, `${name}_more.>`], maxAgeMs: 60 * 60 * 1000 });
    expect(changed.config.max_age).toBe(nanos(60 * 60 * 1000));
    expect(changed.config.subjects).toEqual([`${name}.>`, `${name}_more.>`]);
    expect((await jsm.streams.info(name)).state.messages).toBe(1);
  });

  it("declares a service's stream over rm.<service>.>", async () => {
    const service = uniqueName('svc').toLowerCase();
    const { config } = await declareServiceStream(jsm, service, { maxAgeMs: 24 * 60 * 60 * 1000 });
    streams.push(config.name);
    expect(config).toMatchObject({ name: `RM_${service.toUpperCase()}`, subjects: [`rm.${service}.>`], max_age: nanos(24 * 60 * 60 * 1000) });
  });

  it('reports a stream the server refuses as a StreamDeclarationError with the cause', async () => {
    const name = uniqueName('DECL');
    const refused = declareStream(jsm, { name, subjects: [`${name}.>`], duplicateWindowMs: 60_000, maxAgeMs: 1000 });
    await expect(refused).rejects.toBeInstanceOf(StreamDeclarationError);
    await expect(refused).rejects.toHaveProperty('cause');
  });

  it('declares a durable pull consumer with explicit acks and bounded redelivery, and updates it in place', async () => {
    const name = newStreamName();
    await declareStream(jsm, { name, subjects: [`${name}.>`] });
    const options = { durable: 'worker', filterSubjects: [`${name}.a`], ackWaitMs: 10_000, maxDeliver: 5, maxAckPending: 50 };
    const created = await declareConsumer(jsm, name, options);
    expect(created.config).toMatchObject({
      durable_name: 'worker',
      ack_policy: 'explicit',
      deliver_policy: 'all',
      ack_wait: nanos(10_000),
      max_deliver: 5,
      max_ack_pending: 50,
      filter_subject: `${name}.a`,
    });
    // an inactive_threshold would delete the durable while it is idle
    expect(created.config.inactive_threshold ?? 0).toBe(0);
    expect(created.config.deliver_subject).toBeUndefined();

    const same = await declareConsumer(jsm, name, options);
    expect(same.created).toBe(created.created);

    const updated = await declareConsumer(jsm, name, { ...options, filterSubjects: [`${name}.a`, `${name}.b`], maxDeliver: 7 });
    expect(updated.created).toBe(created.created);
    expect(updated.config).toMatchObject({ max_deliver: 7, filter_subjects: [`${name}.a`, `${name}.b`] });
    expect(updated.config.filter_subject ?? '').toBe('');
  });

  it('reports a consumer on a missing stream as a ConsumerDeclarationError', async () => {
    await expect(declareConsumer(jsm, uniqueName('MISSING'), { durable: 'worker', maxDeliver: 3 })).rejects.toBeInstanceOf(
      ConsumerDeclarationError,
    );
  });
});
