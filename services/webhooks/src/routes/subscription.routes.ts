import type { FastifyPluginAsync } from 'fastify';
import {
  CreatedWebhookSubscription,
  MAX_WEBHOOK_SUBSCRIPTIONS,
  PageQuery,
  parseTypeFilter,
  WebhookDeliveryList,
  WebhookSubscription,
  WebhookSubscriptionBody,
  WebhookSubscriptionPage,
  WebhookSubscriptionParams,
  type Violation,
  type WebhookSubscriptionInput,
} from '@rm/contracts';
import {
  HttpProblem,
  isStringKey,
  NotFound,
  paginate,
  parseIfMatch,
  replyDeleted,
  replyRead,
  replyWritten,
  resourceUrl,
  ValidationProblem,
  type CursorCodec,
} from '@rm/service-kit';
import { generateSecret } from '../domain/signature.js';
import { urlRefusal, type TargetPolicy } from '../delivery/target-policy.js';
import type { AttemptLog } from '../store/attempt-log.js';
import type { Subscription, SubscriptionFields, SubscriptionStore } from '../store/subscriptions.js';

export interface SubscriptionRoutesOptions {
  subscriptions: SubscriptionStore;
  attempts: AttemptLog;
  cursors: CursorCodec;
  targets: TargetPolicy;
}

const PATH = '/webhook-subscription';

/** The API representation: everything but the secret, which only the creating answer shows. */
function represent(subscription: Subscription): WebhookSubscription {
  return {
    id: subscription.id,
    url: subscription.url,
    types: subscription.types,
    ...(subscription.description === undefined ? {} : { description: subscription.description }),
    enabled: subscription.enabled,
    ...(subscription.disabledReason === undefined ? {} : { disabled_reason: subscription.disabledReason }),
    version: subscription.version,
  };
}

/** The rules a schema cannot say: where deliveries may go, and which types exist. */
function decide(input: WebhookSubscriptionInput, targets: TargetPolicy): SubscriptionFields {
  const violations: Violation[] = [];
  const refusal = urlRefusal(input.url, targets);
  if (refusal !== undefined) violations.push({ field: 'url', message: refusal });
  const types = parseTypeFilter(input.types.join(','));
  if (!types.ok) violations.push(...types.violations);
  if (violations.length > 0) throw new ValidationProblem(violations);
  return { url: input.url, types: input.types, ...(input.description === undefined ? {} : { description: input.description }), enabled: input.enabled ?? true };
}

class TooManySubscriptions extends HttpProblem {
  constructor() {
    super({
      status: 409,
      title: 'Conflict',
      detail: `A tenant may have at most ${MAX_WEBHOOK_SUBSCRIPTIONS} webhook subscriptions; delete one first.`,
      code: 'RM_TOO_MANY_SUBSCRIPTIONS',
    });
  }
}

/** `PUT`/`GET`/`DELETE /webhook-subscription/{id}`, the paged list, and each subscription's recent attempts. */
export const subscriptionRoutes: FastifyPluginAsync<SubscriptionRoutesOptions> = async (api, { subscriptions, attempts, cursors, targets }) => {
  const item = `${PATH}/:webhook_subscription_id`;
  type Params = { Params: { webhook_subscription_id: string } };

  api.get<{ Querystring: { cursor?: string; limit?: number } }>(
    PATH,
    { schema: { querystring: PageQuery, response: { 200: WebhookSubscriptionPage } } },
    async (request) => {
      const { tenant } = request.auth;
      const all = await subscriptions.list(tenant);
      const page = await paginate({
        cursor: request.query.cursor,
        limit: request.query.limit ?? 100,
        codec: cursors,
        key: (subscription: Subscription) => subscription.id,
        isKey: isStringKey,
        scope: `${tenant}:webhook-subscriptions`,
        fetch: async ({ bound, descending, limit }) => {
          const ordered = descending ? [...all].reverse() : all;
          const inRange = ordered.filter(({ id }) => {
            if (bound === undefined) return true;
            if ('after' in bound) return id > bound.after;
            if ('from' in bound) return id >= bound.from;
            return id < bound.before;
          });
          return inRange.slice(0, limit);
        },
      });
      return { webhook_subscriptions: page.items.map(represent), cursors: page.cursors };
    },
  );

  api.put<Params & { Body: WebhookSubscriptionInput }>(
    item,
    { schema: { params: WebhookSubscriptionParams, body: WebhookSubscriptionBody, response: { 200: WebhookSubscription, 201: CreatedWebhookSubscription } } },
    async (request, reply) => {
      const { tenant } = request.auth;
      const id = request.params.webhook_subscription_id;
      const fields = decide(request.body, targets);
      const ifMatch = parseIfMatch(request.headers['if-match']);
      const existing = await subscriptions.get(tenant, id);
      if (existing === undefined && (await subscriptions.list(tenant)).length >= MAX_WEBHOOK_SUBSCRIPTIONS) throw new TooManySubscriptions();
      const { created, subscription } = await subscriptions.put(tenant, id, fields, ifMatch, generateSecret);
      if (created) await attempts.forget(tenant, id);
      const body = created ? { ...represent(subscription), secret: subscription.secret } : represent(subscription);
      return replyWritten(reply, { status: created ? 201 : 200, body, version: subscription.version, location: resourceUrl(request, `${PATH}/${id}`) });
    },
  );

  api.get<Params>(item, { schema: { params: WebhookSubscriptionParams, response: { 200: WebhookSubscription } } }, async (request, reply) => {
    const subscription = await subscriptions.get(request.auth.tenant, request.params.webhook_subscription_id);
    if (subscription === undefined) throw new NotFound(`webhook-subscription '${request.params.webhook_subscription_id}' does not exist`);
    return replyRead(reply, { body: represent(subscription), version: subscription.version });
  });

  api.delete<Params>(item, { schema: { params: WebhookSubscriptionParams } }, async (request, reply) => {
    const { tenant } = request.auth;
    const id = request.params.webhook_subscription_id;
    await subscriptions.remove(tenant, id, parseIfMatch(request.headers['if-match']));
    await attempts.forget(tenant, id);
    return replyDeleted(reply);
  });

  api.get<Params>(
    `${item}/deliveries`,
    { schema: { params: WebhookSubscriptionParams, response: { 200: WebhookDeliveryList } } },
    async (request) => {
      const { tenant } = request.auth;
      const id = request.params.webhook_subscription_id;
      if ((await subscriptions.get(tenant, id)) === undefined) throw new NotFound(`webhook-subscription '${id}' does not exist`);
      return { deliveries: await attempts.read(tenant, id) };
    },
  );
};
