import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; request-scoped children carry `requestId`. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-authorization"]'], censor: '[redacted]' },
  });
}
