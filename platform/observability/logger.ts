import { pino, type DestinationStream, type Logger } from 'pino';
import PinoPretty from 'pino-pretty';
import { traceLogFields, tracingEnabled } from './tracing.js';

export type { Logger };

export type LogFormat = 'json' | 'pretty' | 'auto';

export interface LoggerOptions {
  /** stderr keeps stdout clean for CLI output. */
  stderr?: boolean;
  /** Takes the lines elsewhere (tests read them); always JSON. */
  destination?: DestinationStream;
  /** `auto`: readable lines when the output is a terminal, JSON lines otherwise. */
  format?: LogFormat;
}

/** Whether `format` means readable lines on the given output. */
export function wantsPretty(format: LogFormat, stream: { isTTY?: boolean }): boolean {
  return format === 'pretty' || (format === 'auto' && stream.isTTY === true);
}

/**
 * Structured JSON logs for machines; request-scoped children carry `requestId`,
 * and with tracing on, lines written inside a traced operation `trace_id` and `span_id`. People get
 * readable lines (pino-pretty, written synchronously so nothing is lost at exit).
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const stream = options.stderr ? process.stderr : process.stdout;
  const settings = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    // A line written inside a traced operation names its trace and span (none are added while tracing is off).
    ...(tracingEnabled() && { mixin: () => traceLogFields() ?? {} }),
  };
  if (options.destination) return pino(settings, options.destination);
  if (wantsPretty(options.format ?? 'json', stream)) {
    return pino(settings, PinoPretty({ destination: options.stderr ? 2 : 1, sync: true, colorize: stream.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  return pino(settings, options.stderr ? pino.destination(2) : undefined);
}
