import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstream } from '@nats-io/jetstream';
import { EMPLOYEE_EVENTS, eventSubject, type EventEnvelope } from '@rm/contracts';
import { startService } from '@rm/runtime';
import { connectTestNats, startServiceHarness, uniqueName, type TestNats } from '@rm/testkit';
import { webhooksService } from '../src/app.js';

export const BASE = '/resource-management/v1';

/** The webhooks service over a fresh database, delivering anywhere (its receivers run here), quick to retry. */
export function startWebhooks(variables: Record<string, string> = {}) {
  return startServiceHarness('webhooks', (env) => startService(webhooksService, { env }), {
    WEBHOOK_TARGETS: 'any',
    WEBHOOK_TIMEOUT_MS: '500',
    WEBHOOK_RETRY_FIRST_DELAY_MS: '100',
    ...variables,
  });
}

export type Webhooks = Awaited<ReturnType<typeof startWebhooks>>;

export function freshTenant(): string {
  return uniqueName('t').replaceAll('_', '-').slice(0, 40);
}

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Not answered yet, and its connection still open: the attempt is under way. */
  open: boolean;
}

/**
 * A webhook receiver on 127.0.0.1: it answers each request (by its count, and its path under the
 * receiver's URL) with what `answer` says, and keeps them all.
 */
export async function startReceiver(answer: (count: number, path: string) => number | 'hang' = () => 204) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const got: Received = { path: request.url ?? '', headers: request.headers, body, open: true };
      received.push(got);
      response.on('close', () => (got.open = false));
      const status = answer(received.length, got.path);
      if (status !== 'hang') response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** Ends every connection, so that the attempts it holds hanging fail at once. */
    cut: () => server.closeAllConnections(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Publishes employee events on the run's NATS, as the employees service does. */
export async function employeeEvents(): Promise<{ publish(tenant: string, id: string, version?: number): Promise<EventEnvelope>; close(): Promise<void> }> {
  const nats: TestNats = await connectTestNats();
  const js = jetstream(nats.nc);
  return {
    async publish(tenant, id, version = 1) {
      const action = version === 1 ? 'created' : 'updated';
      const event: EventEnvelope = {
        id: randomUUID(),
        type: `employee.${action}`,
        tenant,
        entity_id: id,
        version,
        occurred_at: new Date().toISOString(),
        data: { business_id: id, name: { first_name: 'Ada', last_name: `Peeters ${version}` }, version },
      };
      await js.publish(eventSubject(EMPLOYEE_EVENTS, tenant, action), JSON.stringify(event), { msgID: event.id });
      return event;
    },
    close: () => nats.close(),
  };
}
