import type { OpenApiPaths } from '@rm/service-kit';
import { EXPOSED_ENTITIES } from '@rm/contracts';

/** The schema of one change-feed event's `data`, beside the owners' schemas. */
export const GATEWAY_SCHEMAS = {
  ImportLine: {
    type: 'object',
    description: 'One write of an import, as a single call would make it.',
    required: ['method', 'path'],
    additionalProperties: false,
    properties: {
      method: { type: 'string', enum: ['PUT', 'POST', 'DELETE'] },
      path: { type: 'string', maxLength: 2048, description: 'Under the base URL, like `/employee/emp-1042/availability`; no query.', example: '/employee/emp-1042' },
      body: { type: 'object', additionalProperties: true, description: 'The body of a PUT or POST; absent for DELETE.' },
      headers: {
        type: 'object',
        additionalProperties: false,
        properties: { 'if-match': { type: 'string', maxLength: 1024 }, 'idempotency-key': { type: 'string', maxLength: 1024 } },
      },
    },
  },
  ImportOutcome: {
    type: 'object',
    description: "What one line came to: its status, and the written resource's Location and ETag, or the problem.",
    required: ['line', 'status'],
    properties: {
      line: { type: 'integer', minimum: 1, description: 'The line number in the body, from 1 (blank lines count).' },
      status: { type: 'integer' },
      location: { type: 'string' },
      etag: { type: 'string' },
      problem: { $ref: '#/components/schemas/Problem' },
    },
  },
  ChangeEvent: {
    type: 'object',
    description: "The `data` of one change-feed event: what changed, and the resource as GET shows it (a delete: the state it had).",
    required: ['id', 'type', 'entity_id', 'version', 'occurred_at', 'data'],
    properties: {
      id: { type: 'string', format: 'uuid', description: 'The change: the same in every feed and webhook delivery that carries it.' },
      type: { type: 'string', pattern: '^[a-z-]+\\.(created|updated|deleted)$', example: 'resource-combination.created' },
      entity_id: { type: 'string', description: "The resource's id; `<parent id>/<id>` for an unavailability." },
      version: { type: 'integer', minimum: 1, description: 'The version the change brought the resource to.' },
      occurred_at: { type: 'string', format: 'date-time' },
      data: { type: 'object', additionalProperties: true },
    },
  },
};

const TYPE_NAMES = EXPOSED_ENTITIES.map((entity) => `\`${entity}\``).join(', ');

/** The paths the gateway answers itself, described as the owners describe theirs. */
export const GATEWAY_PATHS: OpenApiPaths = {
  '/changes': {
    get: {
      parameters: [
        {
          name: 'after',
          in: 'query',
          required: false,
          schema: { type: 'string', maxLength: 200, description: 'An event id this feed sent: the feed shows what came after it. `Last-Event-ID` wins when both are sent.' },
        },
        {
          name: 'types',
          in: 'query',
          required: false,
          schema: {
            type: 'string',
            maxLength: 2000,
            description: `Comma-separated \`<entity>.<created|updated|deleted>\` or \`<entity>.*\`, of: ${TYPE_NAMES}. Every type when absent.`,
          },
          example: 'resource-combination.*,available-employee.*',
        },
        {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          schema: { type: 'string', maxLength: 200, description: 'The id of the last event received: an EventSource sends it when it reconnects.' },
        },
      ],
      responses: {
        200: {
          description:
            'Server-sent events, open until the caller closes them. Each has an `id` (the position to resume from), an `event` ' +
            '(its type) and a `data` line with a ChangeEvent. Every 15 s a `: heartbeat` comment comes with an `id` and no data: ' +
            'the position moves on while nothing is shown.',
          content: {
            'text/event-stream': {
              // what each `data` line holds: OpenAPI 3.1 has no schema for a stream's items
              schema: { type: 'string', description: 'Each `data` line is a ChangeEvent.', contentSchema: { $ref: '#/components/schemas/ChangeEvent' } },
              example:
                'id: MTo0MiwxNywzLDAsOTE\nevent: resource-combination.created\n' +
                'data: {"id":"8d1b6f0e-8d7c-4a51-9a57-0f3c2d7e9b11","type":"resource-combination.created","entity_id":"3f2a…",' +
                '"version":1,"occurred_at":"2026-12-08T05:12:09.120Z","data":{"…":"…"}}\n\n',
            },
          },
        },
        400: { $ref: '#/components/responses/BadRequest' },
        410: {
          description: 'The events after this position are no longer kept (at least 7 days are): read the resources again, then open the feed without a position.',
          content: {
            'application/problem+json': {
              schema: { $ref: '#/components/schemas/Problem' },
              example: {
                title: 'Gone',
                status: 410,
                detail:
                  'The events after this Last-Event-ID are no longer kept (the feed keeps at least 7 days). Read the resources again, then open the feed without a position.',
              },
            },
          },
        },
      },
    },
  },
  '/import': {
    post: {
      requestBody: {
        required: true,
        content: {
          'application/x-ndjson': {
            schema: { type: 'string', description: 'One ImportLine per line.', contentSchema: { $ref: '#/components/schemas/ImportLine' } },
            example:
              '{"method":"PUT","path":"/employee/emp-1042","body":{"name":{"first_name":"Ada","last_name":"Peeters"},"home_base":{"business_id":"hb-gent"}}}\n' +
              '{"method":"POST","path":"/employee/emp-1042/availability","headers":{"idempotency-key":"emp-1042-2026-12-07"},' +
              '"body":{"start_location":{"home_base":{"business_id":"hb-gent"}},"earliest_start":"2026-12-07T06:00:00Z","max_duration":"PT9H"}}\n',
          },
        },
      },
      responses: {
        200: {
          description:
            'One ImportOutcome per non-blank input line, in input order, each as soon as it and every line before it are done. ' +
            'A line that fails has the problem a single call would have had; the other lines are not affected.',
          content: {
            'application/x-ndjson': {
              schema: { type: 'string', description: 'One ImportOutcome per line.', contentSchema: { $ref: '#/components/schemas/ImportOutcome' } },
              example:
                '{"line":1,"status":201,"location":"https://rm.example.org/resource-management/v1/employee/emp-1042","etag":"W/\\"1\\""}\n' +
                '{"line":2,"status":409,"problem":{"title":"Conflict","status":409,"detail":"availability overlaps availability \'0b7c…\' of employee \'emp-1042\'"}}\n',
            },
          },
        },
        413: { $ref: '#/components/responses/ContentTooLarge' },
        415: { $ref: '#/components/responses/UnsupportedMediaType' },
      },
    },
  },
};
