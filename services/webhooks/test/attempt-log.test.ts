import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDeliveryAttempt } from '@rm/contracts';
import { connectTestMongo, type TestMongo } from '@rm/testkit';
import { createAttemptLog } from '../src/store/attempt-log.js';

let mongo: TestMongo;

beforeAll(async () => {
  mongo = await connectTestMongo('webhooks_attempt_log');
});

afterAll(async () => {
  await mongo?.close();
});

function attempt(webhookId: string): WebhookDeliveryAttempt {
  return { webhook_id: webhookId, event_type: 'employee.created', entity_id: 'e1', attempt: 1, attempted_at: new Date().toISOString(), outcome: 'failed', status: 503 };
}

describe('the attempt log', () => {
  it("records every one of a subscription's first attempts made at once, in the database too", async () => {
    const log = createAttemptLog(mongo.db);
    const made = Array.from({ length: 8 }, (_, index) => attempt(`msg_${index}`));
    await Promise.all(made.map((one) => log.record('t1', 'hr', one)));

    const newestFirst = made.map(({ webhook_id }) => webhook_id).reverse();
    expect((await log.read('t1', 'hr')).map(({ webhook_id }) => webhook_id)).toEqual(newestFirst);
    // what a restarted service reads
    expect((await createAttemptLog(mongo.db).read('t1', 'hr')).map(({ webhook_id }) => webhook_id)).toEqual(newestFirst);
  });

  it('keeps the newest 100 attempts, and forgets them with their subscription', async () => {
    const log = createAttemptLog(mongo.db);
    await log.record('t2', 'hr', ...Array.from({ length: 120 }, (_, index) => attempt(`msg_${119 - index}`)));
    await log.record('t2', 'hr', attempt('msg_120'));
    const kept = await createAttemptLog(mongo.db).read('t2', 'hr');
    expect(kept).toHaveLength(100);
    expect([kept[0]!.webhook_id, kept[99]!.webhook_id]).toEqual(['msg_120', 'msg_21']);

    await log.forget('t2', 'hr');
    expect(await log.read('t2', 'hr')).toEqual([]);
    expect(await createAttemptLog(mongo.db).read('t2', 'hr')).toEqual([]);
  });
});
