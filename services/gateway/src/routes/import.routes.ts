import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { TenantLimits } from '@rm/contracts';
import { HttpProblem, ServiceUnavailable, UnsupportedMediaType, ValidationProblem, type RevocationCheck } from '@rm/service-kit';
import { callerToken } from '../caller-token.js';
import { BodyTooLarge } from '../errors.js';
import { forwardedHeaders } from '../forwarding.js';
import { parseImportLine } from '../import/import-line.js';
import { forwardLine, lineProblem, type LineOutcome } from '../import/line-forwarder.js';
import { createLineRate } from '../import/line-rate.js';
import { createLineTokens } from '../import/line-tokens.js';
import { ndjsonLines } from '../import/ndjson-lines.js';
import { createOrderedRunner } from '../import/ordered-runner.js';
import { spoolBody } from '../import/spooled-body.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { TenantRequestRate } from '../limits/tenant-request-rate.js';
import type { Upstream } from '../upstreams.js';

export interface ImportRoutesOptions {
  upstreams: readonly Upstream[];
  basePath: string;
  /** The longest line, as BODY_LIMIT_BYTES bounds a single call's body. */
  lineLimit: number;
  /** The largest import body. */
  bodyLimit: number;
  /** Lines one import sends at once. */
  concurrency: number;
  /** Bytes of lines one import holds until their owners have answered them (ordered-runner.ts). */
  windowBytes: number;
  /** The tenants' request rate, which every line counts against as a single call would (line-rate.ts). */
  requestRate: Pick<TenantRequestRate, 'take'>;
  /** What renews the token the lines are sent with, and the revocations that stop it (line-tokens.ts). */
  keyRing: Pick<KeyRing, 'sign'>;
  revocations: RevocationCheck;
  defaultLimits: TenantLimits;
}

/** Lines held at once per import: sent, waiting for their resource's earlier lines, or answered before the lines ahead of them. */
const WINDOW = 2_000;
/** Imports one tenant runs at once on one replica. */
const IMPORTS_PER_TENANT = 1;
/** What the caller's request passes on to every line besides its token: where it came from. */
const CALLER_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-prefix', 'x-request-id', 'traceparent', 'tracestate'];

class ImportRunning extends HttpProblem {
  constructor() {
    super({
      status: 429,
      title: 'Too Many Requests',
      detail: 'An import of this tenant is under way; send the next when it has answered its last line.',
      code: 'RM_RATE_LIMITED',
      headers: { 'Retry-After': '1' },
    });
  }
}

/**
 * `POST {base_url}/import`: an `application/x-ndjson` body of writes, one per line, each applied as a
 * single call would be (its owner, rules, events and quotas), lines of one resource in order and the
 * rest side by side; the answer streams one NDJSON line per input line, in input order, as they finish.
 */
export const importRoutes: FastifyPluginAsync<ImportRoutesOptions> = async (api, options) => {
  const { upstreams, basePath, lineLimit, bodyLimit, concurrency, windowBytes } = options;
  // the body is read line by line as it streams, never whole
  api.addContentTypeParser('application/x-ndjson', (_request, payload, done) => done(null, payload));
  const running = new Map<string, number>();
  const ownerOf = (path: string) => upstreams.find((upstream) => upstream.paths.some((owned) => path === owned || path.startsWith(`${owned}/`)));

  api.post('/import', async (request, reply) => {
    const { tenant } = request.auth;
    if (!/^application\/x-ndjson\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      throw new UnsupportedMediaType('The body of an import must be application/x-ndjson: one write per line.');
    }
    // a declared length over the limit is refused before any of it is read
    if (Number(request.headers['content-length']) > bodyLimit) throw new BodyTooLarge(bodyLimit);
    if ((running.get(tenant) ?? 0) >= IMPORTS_PER_TENANT) throw new ImportRunning();
    running.set(tenant, (running.get(tenant) ?? 0) + 1);
    let body;
    try {
      body = await spoolBody(request.body as Readable, bodyLimit);
    } catch (error) {
      running.set(tenant, running.get(tenant)! - 1);
      throw error;
    }
    const forwarded = forwardedHeaders(request);
    const tokens = createLineTokens({
      caller: callerToken(request, options.revocations),
      auth: request.auth,
      defaultLimits: options.defaultLimits,
      keyRing: options.keyRing,
    });
    const callerHeaders = Object.fromEntries(CALLER_HEADERS.flatMap((name) => (forwarded[name] === undefined ? [] : [[name, forwarded[name]!]])));
    const answer = new PassThrough();
    const stopped = new AbortController();
    answer.on('close', () => stopped.abort());
    const write = (outcome: LineOutcome) => answer.write(`${JSON.stringify(outcome)}\n`);
    const runner = createOrderedRunner<LineOutcome>({ concurrency, window: WINDOW, windowBytes, emit: write });
    const rate = createLineRate({
      rate: options.requestRate,
      tenant,
      limit: request.auth.limits?.requestsPerSecond ?? options.defaultLimits.requestsPerSecond,
      signal: stopped.signal,
    });
    /** A line whose sending failed unexpectedly: logged, and answered as one to send again. */
    const failedLine = (line: number) => (err: unknown) => {
      request.log.error({ err, line }, 'an import line could not be sent');
      return lineProblem(line, new ServiceUnavailable('The line could not be sent; send it again.'));
    };

    const feed = async () => {
      let unkeyed = 0;
      for await (const read of ndjsonLines(body.read(), lineLimit)) {
        if (stopped.signal.aborted) break;
        if (answer.writableNeedDrain) await once(answer, 'drain', { signal: stopped.signal }).catch(() => undefined);
        // a refused line is answered in its place, without waiting for any resource
        const refuse = (problem: HttpProblem) => runner.add(`refused:${(unkeyed += 1)}`, 0, async () => lineProblem(read.number, problem), failedLine(read.number));
        if ('tooLong' in read) {
          await refuse(new HttpProblem({ status: 413, title: 'Content Too Large', detail: `A line must not exceed ${lineLimit} bytes.`, code: 'RM_BODY_TOO_LARGE' }));
          continue;
        }
        const parsed = parseImportLine(read.text, (path) => ownerOf(path) !== undefined);
        if (!parsed.ok) {
          await refuse(new ValidationProblem(parsed.violations, 'The line is not a write of the API; see violations.'));
          continue;
        }
        const { line } = parsed;
        const owner = ownerOf(line.path)!;
        await runner.add(
          line.key,
          Buffer.byteLength(read.text),
          async () => {
            await rate.take();
            return forwardLine(owner, basePath, read.number, line, { ...callerHeaders, authorization: await tokens.header() }, stopped.signal);
          },
          failedLine(read.number),
        );
      }
      await runner.finished();
    };
    feed()
      .catch((err: unknown) => request.log.warn({ err }, 'import cut off'))
      .finally(async () => {
        running.set(tenant, running.get(tenant)! - 1);
        if (running.get(tenant) === 0) running.delete(tenant);
        answer.end();
        await body.remove();
      });
    return reply.type('application/x-ndjson').header('Cache-Control', 'no-store').header('X-Accel-Buffering', 'no').send(answer);
  });
};
