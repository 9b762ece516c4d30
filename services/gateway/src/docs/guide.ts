import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@rm/contracts';
import { IDEMPOTENCY_KEY_TTL_MS } from '@rm/store';
import { html, type SafeHtml } from './html.js';

export interface GuideOptions {
  /** Where the caller reaches the gateway: scheme, host and forwarded prefix (`publicOrigin`). */
  origin: string;
  /** The v1 API under the origin: `/resource-management/v1`. */
  basePath: string;
  /** The token endpoint under the origin: `/oauth2/token`. */
  tokenPath: string;
  /** The largest request body the gateway forwards (BODY_LIMIT_BYTES). */
  bodyLimit: number;
  /** Token requests a second from one IP address (TOKEN_RATE_LIMIT) and for one client id (TOKEN_RATE_LIMIT_PER_CLIENT). */
  tokenRequestsPerIp: number;
  tokenRequestsPerClient: number;
}

/** The statuses an integrator meets, what they mean and what to do, as the services answer them. */
const STATUSES: readonly [status: number, meaning: SafeHtml, action: SafeHtml][] = [
  [400, html`A rule is broken: the body, a parameter, <code>cursor</code>, <code>limit</code>, <code>from</code>/<code>until</code> or <code>If-Match</code>. <code>violations</code> lists each.`, html`Fix what the violations name; do not retry as is.`],
  [401, html`No token, or one refused: <code>WWW-Authenticate</code> says <code>error="invalid_token"</code> when it expired or was revoked. No body.`, html`Get a new token once, then retry.`],
  [404, html`The resource, or the one it belongs to, does not exist (another tenant's resources never do).`, html`Create it, or fix the id.`],
  [409, html`The write conflicts with stored data: overlapping availabilities or deployments, a home base still referred to, a deployment of a released route, a quota reached. The problem names the other resource (<code>conflicting_id</code>).`, html`Resolve the conflict first.`],
  [412, html`<code>If-Match</code> is not the current version, or the resource is gone. Nothing was written.`, html`Read it again, reapply your change, retry with the new ETag.`],
  [413, html`The body is larger than the gateway accepts.`, html`Send less at once.`],
  [415, html`The body is not <code>application/json</code> in UTF-8 (or has a <code>Content-Encoding</code>).`, html`Send <code>Content-Type: application/json</code>.`],
  [422, html`The <code>Idempotency-Key</code> was used before with another body.`, html`Send that body again, or a new key.`],
  [429, html`The tenant's request rate, or the token endpoint's, is used up for this second.`, html`Wait <code>Retry-After</code> seconds, then retry.`],
  [503, html`A part of the system is briefly unavailable. A write cut off on its way may have happened.`, html`Wait <code>Retry-After</code> seconds, then retry (read first if a conditional write then answers 412).`],
  [504, html`The service that owns the resource did not answer in time; a write may or may not have happened.`, html`Retry: PUT and DELETE as they were, a POST with the same <code>Idempotency-Key</code>.`],
];

/**
 * The getting-started guide of the docs page, above the operations: static HTML for the caller's origin,
 * whose curl examples therefore work as they are (given a client's id and secret). What it says is what
 * the gateway and the services do: their limits, headers and statuses.
 */
export function gettingStartedGuide({ origin, basePath, tokenPath, bodyLimit, tokenRequestsPerIp, tokenRequestsPerClient }: GuideOptions): SafeHtml {
  const base = `${origin}${basePath}`;
  const tokenUrl = `${origin}${tokenPath}`;
  const keptHours = IDEMPOTENCY_KEY_TTL_MS / 3_600_000;
  return html`<section id="guide" class="rm-guide" aria-labelledby="guide-title">
  <h1 id="guide-title">Getting started</h1>
  <p class="rm-lead">The Resources API stores the employees, shift schedules, availabilities, transport resources and home bases that
  planning needs, as JSON over HTTP. Each call needs a bearer token from the token URL. The operations are listed below the guide,
  grouped by resource; Authorize there to try them.</p>
  <dl class="rm-facts">
    <dt>Base URL</dt><dd><code>${base}</code></dd>
    <dt>Token URL</dt><dd><code>${tokenUrl}</code></dd>
    <dt>OpenAPI document</dt><dd><a href="${base}/openapi.json"><code>${base}/openapi.json</code></a></dd>
  </dl>
  <nav class="rm-toc" aria-label="Guide">
    <a href="#guide-token">Token</a> <a href="#guide-first-calls">First calls</a> <a href="#guide-paging">Paging</a>
    <a href="#guide-errors">Errors and violations</a> <a href="#guide-etag">ETag and If-Match</a> <a href="#guide-prefer">Prefer</a>
    <a href="#guide-idempotency">Idempotency-Key</a> <a href="#guide-rate-limits">Rate limits</a> <a href="#guide-changes">Change feed</a>
    <a href="#guide-webhooks">Webhooks</a> <a href="#guide-import">Bulk load</a> <a href="#licence">Licence</a>
  </nav>

  <section id="guide-token">
    <h2>Token</h2>
    <p>The API uses OAuth 2.0 client credentials. Ask the token URL for a token with your client id and secret as HTTP Basic
    credentials (or as <code>client_id</code> and <code>client_secret</code> in the form body, never both):</p>
    <pre><code>curl -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials '${tokenUrl}'</code></pre>
    <pre><code>{"access_token": "eyJhbGciOiJFUzI1NiIs…", "expires_in": 300, "not-before-policy": 0,
 "refresh_expires_in": 0, "scope": "", "token_type": "Bearer"}</code></pre>
    <p>Send it on every call as <code>Authorization: Bearer &lt;access_token&gt;</code>. It lives <code>expires_in</code> seconds, and
    there is no refresh token: ask for a new one when 80–90 % of <code>expires_in</code> has passed, and reuse it until then. If a call
    answers 401 with <code>error="invalid_token"</code> in <code>WWW-Authenticate</code> (expired or revoked), get a new token once and
    retry once; a 401 without <code>error</code> means no token was sent. A wrong id or secret is 401 <code>invalid_client</code>;
    repeated failed logins from one address block it for a while (its connections are closed without an answer).</p>
    <h3 id="guide-try-it">Trying it on this page</h3>
    <p>Press <strong>Authorize</strong> above the operations, enter your client id and secret under <code>clientCredentials</code>,
    and Authorize: the page gets a token from the token URL with HTTP Basic. Then open an operation, <strong>Try it out</strong> and
    <strong>Execute</strong>: the call is real, so use a test client. The page does not renew the token: after
    <code>expires_in</code> seconds, Logout and Authorize again. It keeps the token (never the secret) in this browser's local
    storage until you Logout.</p>
  </section>

  <section id="guide-first-calls">
    <h2>First calls</h2>
    <p>Check the connection and the token with <code>GET /ping</code>, which answers <code>pong</code>:</p>
    <pre><code>export TOKEN=$(curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials \\
  '${tokenUrl}' | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
curl -H "Authorization: Bearer $TOKEN" '${base}/ping'</code></pre>
    <p>Then store an employee under an id of your own (1 to 512 characters from <code>a-z A-Z 0-9 . ~ - _</code>). PUT creates it
    (201) or replaces it (200):</p>
    <pre><code>export EMPLOYEE='{"name": {"first_name": "Sanne", "last_name": "van den Berg"},
  "start_location": {"name": "Depot Tilburg", "city": "Tilburg", "zip_code": "5048 AB", "country_code": "NL"}}'
curl -i -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$EMPLOYEE" \\
  '${base}/employee/emp-1042'</code></pre>
    <pre><code>HTTP/1.1 201 Created
ETag: W/"1"
Location: ${base}/employee/emp-1042
Preference-Applied: return=representation

{"business_id": "emp-1042", "name": {…}, "start_location": {…}, "version": 1}</code></pre>
    <p>Bodies are <code>application/json</code> in UTF-8, at most ${bodyLimit.toLocaleString('en')} bytes. Date-times carry an
    offset and come back in UTC; durations are ISO 8601 (<code>PT8H</code>, <code>P1DT30M</code>).</p>
  </section>

  <section id="guide-paging">
    <h2>Paging</h2>
    <p>The lists of employees, transport resources, home bases, deployments and an employee's actuals come in pages. Ask without
    <code>cursor</code> for the first page, with <code>limit</code> items (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE});
    then pass <code>cursors.next</code>, exactly as given, as <code>cursor</code>, until a page has no <code>cursors.next</code>:</p>
    <pre><code>curl -H "Authorization: Bearer $TOKEN" '${base}/employee?limit=100'</code></pre>
    <pre><code>{"employees": [{"business_id": "emp-1042", …}, …], "cursors": {"self": "…", "next": "nPN9GWNPLBqM…"}}</code></pre>
    <pre><code>export NEXT='nPN9GWNPLBqM…'   # cursors.next of the page before
curl -H "Authorization: Bearer $TOKEN" "${base}/employee?limit=100&amp;cursor=$NEXT"</code></pre>
    <p>The order is stable: writes made while you page do not make you skip or repeat an item. Cursors are opaque and bound to
    your tenant and the list; an altered one is a 400 naming <code>cursor</code>. An employee's shift schedules, availabilities and
    unavailabilities come as one array, narrowed by <code>from</code> and <code>until</code>.</p>
  </section>

  <section id="guide-errors">
    <h2>Errors and violations</h2>
    <p>Errors are <code>application/problem+json</code> (RFC 9457) with <code>title</code>, <code>status</code> and
    <code>detail</code>. A 400 lists every broken rule in <code>violations</code>, each with the <code>field</code> (a path into the body
    such as <code>start_location.city</code> or <code>skills[1]</code>, or the name of the parameter or header) and a
    <code>message</code>:</p>
    <pre><code>{"title": "Invalid request", "status": 400, "detail": "The request has invalid fields; see violations.",
 "violations": [{"field": "max_duration", "message": "must be an ISO 8601 duration, like PT8H"}]}</code></pre>
    <div class="rm-scroll"><table class="rm-table">
      <thead><tr><th>Status</th><th>Meaning</th><th>What to do</th></tr></thead>
      <tbody>${STATUSES.map(([status, meaning, action]) => html`<tr><td>${status}</td><td>${meaning}</td><td>${action}</td></tr>`)}</tbody>
    </table></div>
    <p>Every answer carries an <code>X-Request-Id</code>: quote it when you ask us about a call.</p>
  </section>

  <section id="guide-etag">
    <h2>ETag and If-Match</h2>
    <p>Every resource has a <code>version</code>, a number that starts at 1 and grows by one with each change (a PUT of the
    same body changes nothing and keeps it). Reads of one resource and writes answer it as a weak ETag, <code>ETag: W/"2"</code>.
    Send it back in <code>If-Match</code> on PUT or DELETE to write only if nobody has changed the resource since you read it;
    otherwise the answer is 412 and nothing is written. <code>If-Match: *</code> writes only if the resource exists. Without
    <code>If-Match</code> the last write wins.</p>
    <pre><code># read it: ETag: W/"1"
curl -i -H "Authorization: Bearer $TOKEN" '${base}/employee/emp-1042'
# move her to another depot if nobody changed her since: 200 and ETag: W/"2"; the same request again: 412
export MOVED='{"name": {"first_name": "Sanne", "last_name": "van den Berg"},
  "start_location": {"name": "Depot Breda", "city": "Breda", "zip_code": "4811 AA", "country_code": "NL"}}'
curl -i -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  -H 'If-Match: W/"1"' -d "$MOVED" '${base}/employee/emp-1042'</code></pre>
  </section>

  <section id="guide-prefer">
    <h2>Prefer</h2>
    <p>A write answers with the resource in its body (<code>Prefer: return=representation</code>, the default): 201 when it
    creates, 200 when it replaces. With <code>Prefer: return=minimal</code> it answers 204 without a body, still with
    <code>ETag</code> and <code>Location</code>. <code>Preference-Applied</code> says which one was applied.</p>
    <pre><code># 204 without a body, with Preference-Applied: return=minimal
curl -i -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  -H 'Prefer: return=minimal' -d "$EMPLOYEE" '${base}/employee/emp-1042'</code></pre>
  </section>

  <section id="guide-idempotency">
    <h2>Idempotency-Key</h2>
    <p>PUT and DELETE can be sent again safely. A POST creates a resource under an id the service generates (shift schedules,
    availabilities, employee and transport resource unavailabilities), so sent twice it would create two. Give each create an
    <code>Idempotency-Key</code> (a new UUID, say; 1 to 255 visible ASCII characters) and send the same key and body when you
    retry it after a lost answer, a 503 or a 504. For ${keptHours} hours the retry creates nothing more: it answers as the first
    did (201, the same <code>Location</code>) with <code>Idempotent-Replayed: true</code>. The same key with another body is 422;
    a key whose resource has since been deleted is 409. A key belongs to one list (one employee's availabilities, say).</p>
    <pre><code>curl -i -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  -H 'Idempotency-Key: 5b0e7f3c-2a61-4d8e-9f14-7c3a9e2b6d01' \\
  -d '{"earliest_start": "2026-12-08T05:00:00Z", "max_duration": "PT9H"}' \\
  '${base}/employee/emp-1042/availability'</code></pre>
  </section>

  <section id="guide-rate-limits">
    <h2>Rate limits</h2>
    <p>Each tenant may make a number of requests in any one second, counted across every gateway. Each answer to a call with a
    token says where the tenant stands, in the IETF RateLimit fields: <code>RateLimit-Policy: "tenant";q=200;w=1</code> (200
    requests a 1-second window) and <code>RateLimit: "tenant";r=143;t=1</code> (143 left, all of them again within 1 second).
    Beyond the rate the answer is 429 problem+json with <code>Retry-After: 1</code> and the same fields: wait that long, then
    retry.</p>
    <p>The token endpoint takes at most ${tokenRequestsPerIp} requests a second from one IP address, and
    ${tokenRequestsPerClient} for one client id; beyond that it answers 429 with <code>Retry-After: 1</code>. Reuse each token
    until it is due for renewal rather than asking for one per call.</p>
  </section>

  <section id="guide-changes">
    <h2>Change feed</h2>
    <p><code>GET /changes</code> streams every create, update and delete of your tenant as server-sent events, the resources the
    matching engine keeps (AvailableEmployees, ResourceCombinations) included. Each event's <code>data</code> has the change's
    <code>id</code>, <code>type</code>, <code>entity_id</code>, <code>version</code>, <code>occurred_at</code> and the resource as
    GET shows it (a delete: the state it had). Keep the last <code>id</code> you received (heartbeats every 15 seconds carry one
    too) and reconnect with <code>Last-Event-ID</code> or <code>?after=</code>: nothing is lost or repeated, in order per
    resource. A position older than what is kept (at least 7 days) answers 410: read the resources again, then open the feed
    without one. <code>?types=</code> narrows it: <code>resource-combination.*,employee.deleted</code>.</p>
    <pre><code>curl -N -H "Authorization: Bearer $TOKEN" '${base}/changes?types=resource-combination.*'</code></pre>
  </section>

  <section id="guide-webhooks">
    <h2>Webhooks</h2>
    <p>A webhook subscription has the changes POSTed to your URL instead, with the change-feed event as the body, signed as
    <a href="https://www.standardwebhooks.com">Standard Webhooks</a>: check <code>webhook-signature</code> (HMAC-SHA256 under the
    <code>whsec_</code> secret of <code>webhook-id</code>.<code>webhook-timestamp</code>.body) before you trust a delivery. The
    secret is shown once, in the answer that creates the subscription. Answer 2xx within 10 seconds; any other answer, or none,
    is tried again with the same <code>webhook-id</code> for 24 hours, and a subscription whose deliveries all fail for 3 days is
    disabled (<code>disabled_reason</code> says since when; set <code>enabled</code> to true again). The URL must be https on a
    public address. <code>GET /webhook-subscription/{id}/deliveries</code> shows the last 100 attempts.</p>
    <pre><code>curl -i -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  -d '{"url": "https://tms.example.org/hooks/rm", "types": ["resource-combination.*"]}' \\
  '${base}/webhook-subscription/tms-combinations'</code></pre>
  </section>

  <section id="guide-import">
    <h2>Bulk load</h2>
    <p><code>POST /import</code> takes many writes at once: an <code>application/x-ndjson</code> body, one write per line, as
    <code>{"method": "PUT", "path": "/employee/emp-1042", "body": {…}, "headers": {"if-match": …, "idempotency-key": …}}</code>.
    Each line applies as the single call would (the same rules, events and quotas); the lines of one resource (the first two
    parts of the path) in order, the rest side by side. The answer streams one line per line, in input order:
    <code>{"line": 1, "status": 201, "location": …, "etag": …}</code>, or the problem the single call would have had. A bad line
    fails alone. The lines count against your tenant's request rate: they wait for it rather than being refused, so an import
    goes as fast as single calls could. Give POST lines an <code>idempotency-key</code>, so that an import cut off may be sent again whole. An import
    may outlast your token: the gateway renews it for the lines, unless the client or tenant has since been revoked.</p>
    <pre><code>curl -N -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/x-ndjson' \\
  --data-binary @customer.ndjson '${base}/import'</code></pre>
  </section>

  <section id="licence">
    <h2>Licence</h2>
    <p>The Resources API, this documentation and the OpenAPI document are proprietary. They may be used only to build and run the
    integrations of licensed customers with their resource-management service, under those customers' licence agreements. No
    other right is granted: not to copy, publish or redistribute them, nor to use them for anything else.</p>
    <p>The reference below is drawn by swagger-ui, which is under the Apache License 2.0.</p>
  </section>
</section>
`;
}
