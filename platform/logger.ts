import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs; request-scoped children carry `requestId`. `stderr` keeps stdout clean for
 * CLI output; `destination` takes the lines elsewhere (tests read them).
 */
export function createLogger(level: string, options: { stderr?: boolean; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? (options.stderr ? pino.destination(2) : undefined),
  );
}
