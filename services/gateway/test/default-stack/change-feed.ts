import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@rm/testkit';
import { BASE, signIn, signWithGatewayKey, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

/** One server-sent event as the feed wrote it; `event` and `data` are absent on an id-only message. */
interface FeedEvent {
  id?: string;
  event?: string;
  data?: Record<string, unknown>;
}

/** An open feed: the events read so far (comments left out), until closed. */
interface OpenFeed {
  status: number;
  headers: Headers;
  events: FeedEvent[];
  /** The events with data. */
  changes(): FeedEvent[];
  lastId(): string | undefined;
  /** The server ended the stream. */
  ended(): boolean;
  close(): void;
}

let gateway: GatewayHarness;
let token: string;
let otherToken: string;
const feeds: OpenFeed[] = [];

function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const { token: as = token, ...rest } = init;
  return gateway.fetch(`${BASE}${path}`, {
    ...rest,
    headers: { Authorization: `Bearer ${as}`, ...(rest.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
  });
}

function parseEvent(block: string): FeedEvent | undefined {
  const event: FeedEvent = {};
  let seen = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') event.id = value;
    if (field === 'event') event.event = value;
    if (field === 'data') event.data = JSON.parse(value) as Record<string, unknown>;
    if (field === 'id' || field === 'event' || field === 'data') seen = true;
  }
  return seen ? event : undefined;
}

async function openFeed(path: string, as: string, headers: Record<string, string> = {}): Promise<OpenFeed> {
  const abort = new AbortController();
  const response = await gateway.fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${as}`, ...headers }, signal: abort.signal });
  const events: FeedEvent[] = [];
  let ended = false;
  const feed: OpenFeed = {
    status: response.status,
    headers: response.headers,
    events,
    changes: () => events.filter((event) => event.data !== undefined),
    lastId: () => events.findLast((event) => event.id !== undefined)?.id,
    ended: () => ended,
    close: () => abort.abort(),
  };
  feeds.push(feed);
  if (response.status !== 200 || response.body === null) {
    (feed as { problem?: unknown }).problem = await response.json();
    return feed;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of response.body!) {
        text += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const event = parseEvent(text.slice(0, end));
          text = text.slice(end + 2);
          if (event !== undefined) events.push(event);
        }
      }
      ended = true;
    } catch {
      // aborted
    }
  })();
  return feed;
}

function problemOf(feed: OpenFeed): Record<string, unknown> {
  return (feed as { problem?: Record<string, unknown> }).problem!;
}

const EMPLOYEE = {
  name: { first_name: 'Ada', last_name: 'Peeters' },
  start_location: { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' },
};

/** The change feed through the gateway: the stack's heartbeat is 200 ms and a tenant may keep 5 feeds open. */
export function describeChangeFeed(stack: () => Stack): void {
  describe('GET /changes', () => {
    beforeAll(async () => {
      gateway = stack().gateway;
      ({ token } = await signIn(gateway));
      ({ token: otherToken } = await signIn(gateway));
      // the feed reads the owners' streams once they have declared them
      await waitFor('the feed to read every stream', async () => {
        const feed = await openFeed('/changes', token);
        feed.close();
        return feed.status === 200;
      });
    });

    afterEach(() => {
      for (const feed of feeds.splice(0)) feed.close();
    });

    it('streams a write of the caller as the resource GET shows, and nothing of another tenant', async () => {
      const feed = await openFeed('/changes', token);
      const other = await openFeed('/changes', otherToken);
      expect(feed.status).toBe(200);
      expect(feed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(feed.headers.get('x-accel-buffering')).toBe('no');
      expect(feed.headers.get('cache-control')).toBe('no-store');

      expect((await call('/employee/feed-e1', { method: 'PUT', body: JSON.stringify(EMPLOYEE) })).status).toBe(201);
      const shown = await (await call('/employee/feed-e1')).json();
      const change = await waitFor('the created event', async () => feed.changes().find((event) => event.event === 'employee.created'));
      expect(change.data).toMatchObject({ type: 'employee.created', entity_id: 'feed-e1', version: 1, data: shown });
      expect(change.data).not.toHaveProperty('tenant');
      expect(typeof change.data!.occurred_at).toBe('string');
      expect(change.id).toMatch(/^[A-Za-z0-9_-]+$/);

      // the other tenant's feed is open all along and sees its heartbeats only
      await waitFor('heartbeats of the other feed', async () => other.events.length >= 3);
      expect(other.changes()).toEqual([]);
    });

    it('resumes after a Last-Event-ID with nothing lost and nothing repeated, in order per resource', async () => {
      const first = await openFeed('/changes?types=employee.*', token);
      for (const version of [1, 2, 3]) {
        const body = { ...EMPLOYEE, name: { ...EMPLOYEE.name, first_name: `Ada ${version}` } };
        expect((await call('/employee/feed-e2', { method: 'PUT', body: JSON.stringify(body) })).status).toBeLessThan(300);
      }
      await waitFor('three writes', async () => first.changes().filter((event) => event.data!.entity_id === 'feed-e2').length === 3);
      const afterFirst = first.changes().find((event) => event.data!.entity_id === 'feed-e2')!;
      first.close();

      // written while nobody listens
      expect((await call('/employee/feed-e2', { method: 'DELETE' })).status).toBe(204);

      const resumed = await openFeed('/changes?types=employee.*', token, { 'Last-Event-ID': afterFirst.id! });
      await waitFor('the delete', async () => resumed.changes().some((event) => event.event === 'employee.deleted'));
      const versions = resumed.changes().filter((event) => event.data!.entity_id === 'feed-e2').map((event) => [event.event, event.data!.version]);
      expect(versions).toEqual([
        ['employee.updated', 2],
        ['employee.updated', 3],
        ['employee.deleted', 4],
      ]);

      // ?after= does the same
      const after = await openFeed(`/changes?types=employee.*&after=${afterFirst.id!}`, token);
      await waitFor('the same three', async () => after.changes().filter((event) => event.data!.entity_id === 'feed-e2').length === 3);
    });

    it('shows only the types asked for, and moves the position on with its heartbeats', async () => {
      const feed = await openFeed('/changes?types=employee.deleted', token);
      const idAtOpen = await waitFor('a first id', async () => feed.lastId());
      expect((await call('/employee/feed-e3', { method: 'PUT', body: JSON.stringify(EMPLOYEE) })).status).toBe(201);
      expect((await call('/employee/feed-e3', { method: 'DELETE' })).status).toBe(204);
      const deleted = await waitFor('the delete', async () => feed.changes().find((event) => event.data!.entity_id === 'feed-e3'));
      expect(deleted.event).toBe('employee.deleted');
      expect(feed.changes().every((event) => event.event === 'employee.deleted')).toBe(true);
      // a heartbeat after the writes carries a position past them: resuming from it shows nothing old
      const count = feed.events.length;
      await waitFor('two more heartbeats', async () => feed.events.length > count + 1);
      expect(feed.lastId()).not.toBe(idAtOpen);
      const resumed = await openFeed('/changes', token, { 'Last-Event-ID': feed.lastId()! });
      await waitFor('a heartbeat', async () => resumed.events.length >= 2);
      expect(resumed.changes()).toEqual([]);
    });

    it('answers 400 naming the field for an unknown type or a position it did not write, before streaming', async () => {
      const badType = await openFeed('/changes?types=employee.*,truck.created', token);
      expect(badType.status).toBe(400);
      expect(badType.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(problemOf(badType).violations).toEqual([{ field: 'types', message: expect.stringContaining('"truck.created"') }]);

      const badPosition = await openFeed('/changes?after=bm90LWEtcG9zaXRpb24', token);
      expect(badPosition.status).toBe(400);
      expect(problemOf(badPosition).violations).toEqual([{ field: 'after', message: 'must be an event id this feed sent' }]);

      const badHeader = await openFeed('/changes', token, { 'Last-Event-ID': '1:2:3' });
      expect(badHeader.status).toBe(400);
      expect(problemOf(badHeader).violations).toEqual([{ field: 'Last-Event-ID', message: 'must be an event id this feed sent' }]);
    });

    it('answers 410 for a position beyond what the streams hold', async () => {
      const gone = await openFeed(`/changes?after=${Buffer.from('1:999999999,0,0,0,0').toString('base64url')}`, token);
      expect(gone.status).toBe(410);
      expect(problemOf(gone)).toMatchObject({ status: 410, title: 'Gone', detail: expect.stringContaining('no longer kept') });
    });

    it('ends when the token it was opened with expires: the caller comes back with a new one', async () => {
      const now = Math.floor(Date.now() / 1000);
      const shortLived = await signWithGatewayKey(gateway, { iat: now, exp: now + 2 }, { tenant: 'feed-expiry' });
      const feed = await openFeed('/changes', shortLived);
      expect(feed.status).toBe(200);
      await waitFor('the feed to end at the expiry', async () => feed.ended(), 10_000);
    });

    it('needs a token', async () => {
      const response = await gateway.fetch(`${BASE}/changes`);
      expect(response.status).toBe(401);
    });

    it('refuses a tenant more open feeds than it may keep, and admits it again once one closes', async () => {
      const { token: limited } = await signIn(gateway);
      const open: OpenFeed[] = [];
      for (let count = 0; count < 5; count += 1) open.push(await openFeed('/changes', limited));
      expect(open.map((feed) => feed.status)).toEqual([200, 200, 200, 200, 200]);
      const refused = await openFeed('/changes', limited);
      expect(refused.status).toBe(429);
      expect(problemOf(refused)).toMatchObject({ status: 429, limit: 5 });
      open[0]!.close();
      await waitFor('room for a feed', async () => {
        const again = await openFeed('/changes', limited);
        again.close();
        return again.status === 200;
      });
    });
  });
}
