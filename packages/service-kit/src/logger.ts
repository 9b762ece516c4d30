import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  /** The service's name, on every line. */
  name: string;
  /** Where lines go; stdout when absent (tests pass a stream to read them). */
  destination?: DestinationStream;
}

interface RequestLike {
  method?: string;
  url?: string;
  ip?: string;
}

/**
 * The one pino logger of a service, handed to fastify as `loggerInstance`. Requests are logged by
 * method, url and status only, never bodies or headers, and credentials are redacted wherever
 * someone logs headers by hand.
 */
export function createLogger({ level, name, destination }: LoggerOptions): Logger {
  return pino(
    {
      level,
      name,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: activeTrace,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          'res.headers["set-cookie"]',
          'authorization',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (request: RequestLike) => ({ method: request.method, url: request.url, remoteAddress: request.ip }),
        res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}

/**
 * `trace_id` and `span_id` of the span active where a line is written (a request, an event's handling),
 * so that logs and traces meet. A fresh object each time: pino merges the line into it.
 */
function activeTrace(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
