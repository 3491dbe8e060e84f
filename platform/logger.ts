import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs; request-scoped children carry `requestId`. `stderr` keeps stdout clean for CLI output. */
export function createLogger(level: string, options: { stderr?: boolean } = {}): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.stderr ? pino.destination(2) : undefined,
  );
}
