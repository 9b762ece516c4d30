import type { FastifyPluginAsync } from 'fastify';
import type { RevocationCheck } from '@rm/service-kit';
import { callerToken } from '../caller-token.js';
import type { ChangeFeeds } from '../changes/change-feeds.js';

export interface ChangesRoutesOptions {
  feeds: ChangeFeeds;
  /** A feed ends once its caller's token is revoked, as a call would be refused. */
  revocations: RevocationCheck;
}

const Query = {
  type: 'object',
  properties: {
    after: { type: 'string', maxLength: 200, description: 'An event id of this feed: the feed starts after it. `Last-Event-ID` wins when both are sent.' },
    types: {
      type: 'string',
      maxLength: 2_000,
      description: 'Comma-separated event types, `<entity>.<created|updated|deleted>` or `<entity>.*`; every type when absent.',
    },
  },
  additionalProperties: false,
} as const;

/**
 * `GET {base_url}/changes`: the caller's tenant's changes as server-sent events, from a position or from
 * now. Problems (a bad position or type, a position no longer kept) come before the stream starts.
 */
export const changesRoutes: FastifyPluginAsync<ChangesRoutesOptions> = async (api, { feeds, revocations }) => {
  api.get<{ Querystring: { after?: string; types?: string } }>('/changes', { schema: { querystring: Query } }, async (request, reply) => {
    const lastEventId = request.headers['last-event-id'];
    const position =
      typeof lastEventId === 'string' && lastEventId !== ''
        ? { field: 'Last-Event-ID', value: lastEventId }
        : request.query.after === undefined
          ? undefined
          : { field: 'after', value: request.query.after };
    // the feed ends with the token it was opened with
    const { expiresAt, revoked } = callerToken(request, revocations);
    const feed = await feeds.open({ tenant: request.auth.tenant, types: request.query.types, position, until: expiresAt, revoked });
    return reply
      .type('text/event-stream; charset=utf-8')
      .header('Cache-Control', 'no-store')
      // nginx and its kin pass each event on instead of buffering the response
      .header('X-Accel-Buffering', 'no')
      .send(feed.body);
  });
};
