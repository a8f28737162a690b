/**
 * Structured JSON logs: one line per event, with the service name, the request
 * id and partner id of the current request (from async context), the trace id
 * and span id of the active trace span (OpenTelemetry's async context), and
 * every field passed through redaction. Use `createLogger(service)` once per process
 * and `logger.child({ context: 'OutboxRelay' })` for components.
 *
 * Every request writes at least one line, so the line's cost is on the hot
 * path: one winston format does context, redaction, timestamp and
 * serialisation in a single pass, and the logger writes the finished line to
 * stdout itself (a synchronous write when stdout is a file or a pipe, so
 * nothing is buffered in the process and lost with it). Winston gives the API
 * (levels, `child`, its call shapes); its object-mode stream and transport
 * pipeline, several stream hops and callbacks per line, is skipped.
 */
import { context, trace } from '@opentelemetry/api';
import winston from 'winston';
import { currentContext } from './context';
import { redactField } from './redact';

export { currentContext, enrichContext, runWithContext } from './context';
export type { RequestContext } from './context';
export { maskEmail, maskTail, redact, redactField } from './redact';
export { recordingLogger } from './recording-logger';
export type { RecordedLogLine } from './recording-logger';

export type Logger = winston.Logger;

/** Where winston's transports read the finished line (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

type Info = winston.Logform.TransformableInfo & Record<string | symbol, unknown>;

/** Serialises a record; what JSON cannot hold (a bigint) is written as a string rather than losing the line. */
function serialise(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record);
  } catch {
    return JSON.stringify(record, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  }
}

/** Each of `fields`' own fields but level and message, redacted (as one value each), into `record`, in order. */
function addRedacted(record: Record<string, unknown>, fields: object): void {
  for (const key of Object.keys(fields)) {
    if (key === 'level' || key === 'message') continue;
    record[key] = redactField(key, (fields as Record<string, unknown>)[key]);
  }
}

/**
 * A record's line: the request's ids and the active span's trace and span ids
 * from async context where the record does not give them, the time last.
 */
function finishedLine(record: Record<string, unknown>): string {
  const { requestId, partnerId } = currentContext();
  if (requestId && record.requestId === undefined) record.requestId = requestId;
  if (partnerId && record.partnerId === undefined) record.partnerId = partnerId;
  // A line that names its trace (the gateway's access line) skips the context lookup.
  if (record.traceId === undefined) {
    const span = trace.getSpanContext(context.active());
    if (span && trace.isSpanContextValid(span)) {
      record.traceId = span.traceId;
      record.spanId = span.spanId;
    }
  }
  record.timestamp = isoTimestamp();
  return serialise(record);
}

let stampedAtMs = Number.NaN;
let stamp = '';

/** The time as ISO 8601, made once per millisecond: a busy process writes several lines in one. */
function isoTimestamp(): string {
  const nowMs = Date.now();
  if (nowMs !== stampedAtMs) {
    stamp = new Date(nowMs).toISOString();
    stampedAtMs = nowMs;
  }
  return stamp;
}

/**
 * The whole line in one pass: level and message first, every other field
 * redacted (as one value each, so a field's own name decides as well as the
 * names inside it), then what finishedLine adds.
 */
export const jsonLine = winston.format((info: Info) => {
  const record: Record<string, unknown> = { level: info.level, message: info.message };
  if (info.message instanceof Error) {
    record.message = info.message.message;
    record.stack = info.message.stack;
  }
  addRedacted(record, info);
  info[MESSAGE] = finishedLine(record);
  return info;
});

/** Formats one record and writes it to stdout as one line. */
export function writeLine(format: winston.Logform.Format, info: Info): void {
  const formatted = format.transform(info, {}) as Info | false;
  if (formatted) process.stdout.write(`${String(formatted[MESSAGE])}\n`);
}

/** What winston would read as a printf token in a message (its `formatRegExp` is /%[scdjifoO%]/g): any `%`. */
const MAY_HOLD_TOKENS = '%';

/**
 * Whether winston's `log(level, message, fields)` would write `fields` as they
 * are: a message with no printf token, and fields that are a plain object
 * naming no message, stack or cause (winston appends or copies those).
 */
function plainCall(message: unknown, fields: unknown): fields is object {
  return (
    typeof message === 'string' &&
    !message.includes(MAY_HOLD_TOKENS) &&
    typeof fields === 'object' &&
    fields !== null &&
    !('message' in fields) &&
    !('stack' in fields) &&
    !('cause' in fields)
  );
}

/**
 * The level methods of `logger` itself (`logger.info(message, fields)`, the
 * shape nearly every line has, the gateway's access line among them) build the
 * line's record straight from the default fields and the call's: the record,
 * its order and its redaction are those winston's `log` and jsonLine make
 * (index.spec.ts compares them), without winston's printf scan, its merged
 * copy of the fields and the format's call. Any other shape, and every call
 * through a child logger (whose own fields winston merges), goes through
 * winston as before.
 */
function writeCommonCallsDirectly(logger: winston.Logger): void {
  const levelMethods = logger as unknown as Record<string, (...args: unknown[]) => winston.Logger>;
  for (const level of Object.keys(logger.levels)) {
    const throughWinston = levelMethods[level];
    levelMethods[level] = function levelMethod(this: unknown, ...args: unknown[]) {
      if (this !== logger || args.length !== 2 || !plainCall(args[0], args[1])) {
        return throughWinston.apply(this, args);
      }
      if (logger.silent || !logger.isLevelEnabled(level)) return logger;
      const record: Record<string, unknown> = { level, message: args[0] };
      if (logger.defaultMeta) addRedacted(record, logger.defaultMeta as object);
      addRedacted(record, args[1]);
      process.stdout.write(`${finishedLine(record)}\n`);
      return logger;
    };
  }
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const format = jsonLine();
  const logger = winston.createLogger({ level, defaultMeta: { service }, format });
  // Every call shape of winston's (logger.info(...), log(...), child loggers, which write
  // through their parent) ends in `write`: a line below the logger's level stops there,
  // before anything is formatted; any other is formatted and written at once, in order.
  logger.write = ((info: Info) => {
    if (!logger.silent && logger.isLevelEnabled(info.level)) writeLine(format, info);
    return true;
  }) as typeof logger.write;
  writeCommonCallsDirectly(logger);
  return logger;
}
