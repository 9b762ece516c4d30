import { HttpProblem } from '@rm/service-kit';

/** 429 from the token endpoint: the source IP asked for more tokens in the last second than allowed. */
export class TooManyTokenRequests extends HttpProblem {
  constructor(from: 'address' | 'client' = 'address') {
    super({
      status: 429,
      title: 'Too Many Requests',
      detail: `Too many token requests ${from === 'address' ? 'from this address' : 'for this client'}; at most the configured number per second is accepted.`,
      code: 'RM_RATE_LIMITED',
      headers: { 'Retry-After': '1' },
    });
  }
}

/** 504: the owner of the path did not answer within UPSTREAM_TIMEOUT_MS. */
export class UpstreamTimeout extends HttpProblem {
  constructor(service: string, cause: unknown) {
    super({ status: 504, title: 'Gateway Timeout', detail: `The ${service} service did not answer in time; retry later.`, code: 'RM_UPSTREAM_TIMEOUT', cause });
  }
}

/**
 * 413: the body is larger than BODY_LIMIT_BYTES, as declared before forwarding or as it streams. The rest of
 * it is never read, so the connection closes after the answer instead of carrying another request.
 */
export class BodyTooLarge extends HttpProblem {
  constructor(limit: number) {
    super({
      status: 413,
      title: 'Content Too Large',
      detail: `The body must not exceed ${limit} bytes.`,
      code: 'RM_BODY_TOO_LARGE',
      headers: { Connection: 'close' },
    });
  }
}

/** 400: the request cannot be forwarded as sent (its body does not match its Content-Length, it was cut off). */
export class UnforwardableRequest extends HttpProblem {
  constructor(detail: string, cause: unknown) {
    super({ status: 400, title: 'Bad Request', detail, code: 'RM_UNFORWARDABLE_REQUEST', cause });
  }
}

/** 429 from the API: the caller's tenant made its limit of requests in the last second, across every replica. */
export class TooManyTenantRequests extends HttpProblem {
  constructor(limit: number, retryAfterSeconds: number, headers: Record<string, string>) {
    super({
      status: 429,
      title: 'Too Many Requests',
      detail: `This tenant's requests are limited to ${limit} a second, and that many were made in the last second (each write of a call that makes many counts); retry after the time in Retry-After.`,
      code: 'RM_RATE_LIMITED',
      extensions: { limit },
      headers: { ...headers, 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/** 429 from a generation call: the tenant has as many under way on this replica as it may. */
export class TooManyGenerations extends HttpProblem {
  constructor(limit: number) {
    super({
      status: 429,
      title: 'Too Many Requests',
      detail: `A tenant may have at most ${limit} availability generations under way at once; send the next when one has answered.`,
      code: 'RM_RATE_LIMITED',
      extensions: { limit },
      headers: { 'Retry-After': '1' },
    });
  }
}

/** 410 from the change feed: events after the caller's position are no longer kept; it starts again from now. */
export class FeedPositionGone extends HttpProblem {
  constructor(field: string) {
    super({
      status: 410,
      title: 'Gone',
      detail: `The events after this ${field} are no longer kept (the feed keeps at least 7 days). Read the resources again, then open the feed without a position.`,
      code: 'RM_FEED_POSITION_GONE',
    });
  }
}

/** 429 from the change feed: the tenant has as many feeds open on this replica as it may. */
export class TooManyFeeds extends HttpProblem {
  constructor(limit: number) {
    super({
      status: 429,
      title: 'Too Many Requests',
      detail: `A tenant may keep at most ${limit} change feeds open at once; close one first.`,
      code: 'RM_RATE_LIMITED',
      extensions: { limit },
      headers: { 'Retry-After': '1' },
    });
  }
}
