import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Cursors, DateTime, Version } from './common.js';
import { ReadOnly } from './shapes.js';

/** Most subscriptions one tenant may have: each event is matched against every one. */
export const MAX_WEBHOOK_SUBSCRIPTIONS = 50;

const subscriptionFields = {
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'Where deliveries are POSTed: an https URL (http only on a development stack) without credentials, whose host resolves to public addresses only.',
  }),
  types: Type.Array(
    Type.String({ minLength: 3, maxLength: 100, description: '`<entity>.<created|updated|deleted>` or `<entity>.*`, as the change feed takes them.' }),
    { minItems: 1, maxItems: 50, uniqueItems: true, description: 'The event types delivered: 1 to 50.' },
  ),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: '1 to 500 characters.' })),
};

/** Body of `PUT /webhook-subscription/{webhook_subscription_id}`. */
export const WebhookSubscriptionBody = Type.Object(
  {
    ...subscriptionFields,
    enabled: Type.Optional(Type.Boolean({ description: 'Default true. Setting it to true again re-enables a subscription that was disabled for failing.' })),
    id: Type.Optional(ReadOnly),
    version: Type.Optional(ReadOnly),
    disabled_reason: Type.Optional(ReadOnly),
  },
  { additionalProperties: false },
);
export type WebhookSubscriptionInput = Static<typeof WebhookSubscriptionBody>;

export const WebhookSubscription = Type.Object(
  {
    id: BusinessId,
    ...subscriptionFields,
    enabled: Type.Boolean(),
    disabled_reason: Type.Optional(Type.String({ description: 'Why the service disabled it: its deliveries failed for 3 days.' })),
    version: Version,
  },
  { additionalProperties: false },
);
export type WebhookSubscription = Static<typeof WebhookSubscription>;

/** The answer that creates a subscription: the only one that shows its signing secret. */
export const CreatedWebhookSubscription = Type.Object(
  {
    ...WebhookSubscription.properties,
    secret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]+=*$',
      description: 'The signing secret (Standard Webhooks): shown in this answer only. Delete and create the subscription again for a new one.',
    }),
  },
  { additionalProperties: false },
);

export const WebhookSubscriptionPage = Type.Object({
  webhook_subscriptions: Type.Array(WebhookSubscription, { description: 'At most `limit` subscriptions (1 to 1000, default 100).' }),
  cursors: Cursors,
});

export const WebhookSubscriptionParams = Type.Object({ webhook_subscription_id: BusinessId }, { additionalProperties: false });
export type WebhookSubscriptionParams = Static<typeof WebhookSubscriptionParams>;

export const WebhookDeliveryAttempt = Type.Object(
  {
    webhook_id: Type.String({ description: 'The `webhook-id` header: the same on every attempt of one delivery.' }),
    event_type: Type.String(),
    entity_id: Type.String(),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of the delivery.' }),
    attempted_at: DateTime,
    outcome: Type.Union([Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('gave-up'), Type.Literal('dropped')], {
      description:
        '`delivered`: a 2xx answer. `failed`: tried again later. `gave-up`: the last attempt, 24 hours after the change. `dropped`: not sent: the subscription was disabled or deleted, or it had too many deliveries waiting and this was the oldest.',
    }),
    status: Type.Optional(Type.Integer({ description: "The receiver's HTTP status." })),
    error: Type.Optional(Type.String({ description: 'Why there was no answer, or why it was refused.' })),
    duration_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    next_attempt_at: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);
export type WebhookDeliveryAttempt = Static<typeof WebhookDeliveryAttempt>;

export const WebhookDeliveryList = Type.Object({
  deliveries: Type.Array(WebhookDeliveryAttempt, { description: 'The most recent attempts, newest first: at most 100.' }),
});
