/**
 * A logger that keeps what it is given instead of writing it, for specs that prove what a unit
 * logs (an alert raised, a value never named). Only the level methods and `child` are there: a
 * unit under test that reaches for more is using the logger in a way its spec should see.
 */
import type winston from 'winston';

type Logger = winston.Logger;

/** One call to a level method: its message and the fields passed with it (`{}` when none). */
export interface RecordedLogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A logger whose lines land in `lines`, in call order; `child()` answers the same logger. */
export function recordingLogger(): { logger: Logger; lines: RecordedLogLine[] } {
  const lines: RecordedLogLine[] = [];
  const record =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, message, fields });
  const logger = {
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    debug: record('debug'),
  } as unknown as Logger;
  (logger as unknown as { child: () => Logger }).child = () => logger;
  return { logger, lines };
}
