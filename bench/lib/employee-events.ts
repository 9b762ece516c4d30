// The baseline of the benches that time a write until its change reaches a client (change-feed,
// webhooks): the same event at a plain consumer of the employees stream, the broker alone.
import { parseEventSubject, serviceStream } from '@rm/contracts';
import { createArrivals } from './arrivals.ts';
import type { BenchContext } from './bench.ts';

/** When each employee.created event of a tenant reached the bench's consumer, by entity id, and its event id. */
export interface EmployeeEventFollower {
  arrivals: ReturnType<typeof createArrivals>;
  /** The id of the employee.created event of each entity seen. */
  eventIds: Map<string, string>;
  stop(): Promise<void>;
}

/** A plain ordered consumer of the employees stream from its end, as the gateway's change feed reads it. */
export async function followEmployeeEvents(context: BenchContext, tenant: string, timeoutMs: number): Promise<EmployeeEventFollower> {
  const stream = serviceStream('employees').name;
  const { state } = await context.jsm.streams.info(stream);
  const consumer = await context.js.consumers.get(stream, { opt_start_seq: state.last_seq + 1 });
  const messages = await consumer.consume({ max_messages: 1_000 });
  const arrivals = createArrivals(timeoutMs);
  const eventIds = new Map<string, string>();
  const reading = (async () => {
    for await (const msg of messages) {
      const subject = parseEventSubject(msg.subject);
      if (subject?.tenant !== tenant || subject.entity !== 'employee' || subject.action !== 'created') continue;
      const { id, entity_id: key } = JSON.parse(msg.string()) as { id: string; entity_id: string };
      eventIds.set(key, id);
      arrivals.record(key);
    }
  })();
  return {
    arrivals,
    eventIds,
    async stop() {
      messages.stop();
      await reading;
    },
  };
}
