import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { OutboxEntry } from '@rm/contracts';
import { connectTestNats, uniqueName, type TestNats } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declareServiceStream, publishEvents } from '../src/index.js';

describe('publishing events no outbox holds', () => {
  let nats: TestNats;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let service: string;
  let stream: string;

  beforeAll(async () => {
    nats = await connectTestNats();
    js = jetstream(nats.nc);
    jsm = await jetstreamManager(nats.nc);
    service = uniqueName('published').toLowerCase();
    stream = (await declareServiceStream(jsm, service)).config.name;
  });

  afterAll(async () => {
    await jsm?.streams.delete(stream);
    await nats?.close();
  });

  const eventOf = (index: number, subject = `rm.${service}.t1.widget.created`): OutboxEntry => ({
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    type: 'widget.created',
    tenant: 't1',
    entity_id: `w-${index}`,
    version: 1,
    occurred_at: new Date(0).toISOString(),
    data: { business_id: `w-${index}` },
    subject,
  });

  it('stores every event once, many in flight, and an event published again under its id not twice', async () => {
    const events = Array.from({ length: 300 }, (_, index) => eventOf(index));
    await publishEvents(js, events, { maxInFlight: 32 });
    await publishEvents(js, events.slice(0, 10));
    const info = await jsm.streams.info(stream);
    expect(info.state.messages).toBe(300);
    const stored = await jsm.streams.getMessage(stream, { seq: info.state.first_seq });
    // the subject is where it goes, not part of the event
    expect(stored?.json()).toEqual({ ...eventOf(0), subject: undefined });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(eventOf(0).id);
  });

  it('rejects when one cannot be stored, once the others have settled', async () => {
    const before = (await jsm.streams.info(stream)).state.messages;
    const events = [eventOf(1_000), eventOf(1_001, `rm.${service}-nowhere.t1.widget.created`), eventOf(1_002)];
    await expect(publishEvents(js, events, { publishTimeoutMs: 1_000 })).rejects.toThrow();
    expect((await jsm.streams.info(stream)).state.messages).toBe(before + 2);
  });
});
