/**
 * Structured JSON logs: one line per event, with the service name, the request
 * id and partner id of the current request (from async context), and every
 * field passed through redaction. Use `createLogger(service)` once per process
 * and `logger.child({ context: 'OutboxRelay' })` for components.
 */
import winston from 'winston';
import { currentContext } from './context';
import { redact } from './redact';

export { currentContext, enrichContext, runWithContext } from './context';
export type { RequestContext } from './context';
export { maskEmail, maskTail, redact } from './redact';

export type Logger = winston.Logger;

const addContext = winston.format((info) => {
  const { requestId, partnerId } = currentContext();
  if (requestId && info.requestId === undefined) info.requestId = requestId;
  if (partnerId && info.partnerId === undefined) info.partnerId = partnerId;
  return info;
});

const redactFields = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'message') continue;
    const record = info as Record<string, unknown>;
    record[key] = (redact({ [key]: record[key] }) as Record<string, unknown>)[key];
  }
  return info;
});

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(
      addContext(),
      redactFields(),
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [new winston.transports.Console()],
  });
}
