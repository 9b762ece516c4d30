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
