/**
 * Values the integration tests saw that must never reach a log: signing and
 * webhook secrets, approval and confirmation codes. Each is appended to
 * <stack dir>/sensitive-values.txt; after the run, scripts/test.mjs scans every
 * log of the test stack for them (and fails the run on a hit).
 */
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const SENSITIVE_VALUES_FILE = 'sensitive-values.txt';
/** Shorter values would match by chance in any log; codes are 6 digits. */
const SENSITIVE_LENGTH_MIN = 6;
/** Keys of `ops --json` outputs whose values are secrets. */
const SECRET_KEY = /secret$/i;
const RECURSION_DEPTH_MAX = 5;

/** Records one value for the log scan; a no-op outside the test stack or for values too short to scan for. */
export function recordSensitive(value: unknown): void {
  const stackFile = process.env.TEST_STACK_FILE;
  if (!stackFile || typeof value !== 'string' || value.length < SENSITIVE_LENGTH_MIN || /[\r\n]/.test(value)) return;
  appendFileSync(join(dirname(stackFile), SENSITIVE_VALUES_FILE), `${value}\n`, { mode: 0o600 });
}

/** Records every value under a key named like `...Secret` (`signingSecret`, `webhookSecret`) in an ops answer. */
export function recordSecretsIn(value: unknown, depth = 0): void {
  if (depth > RECURSION_DEPTH_MAX || value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (SECRET_KEY.test(key)) recordSensitive(inner);
    else recordSecretsIn(inner, depth + 1);
  }
}

/** Records the codes of a sandbox outbox answer (`[{code}]`). */
export function recordOutboxCodes(body: unknown): void {
  if (!Array.isArray(body)) return;
  for (const entry of body) recordSensitive((entry as { code?: unknown } | null)?.code);
}
