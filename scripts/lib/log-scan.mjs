// The last step of `npm test`: no log of the test stack may hold a secret, a code or a full
// account number. Scanned: every file under the stack's logs folder written during this run.
// Looked for: (a) each value the integration tests recorded in <stack dir>/sensitive-values.txt
// (signing and webhook secrets from `ops`, codes read from the sandbox outbox; see
// libs/testing/src/sensitive.ts), and (b) patterns: `sk_` signing secrets, and 10+ digit
// numbers in fields named like accountNumber.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const SENSITIVE_VALUES_FILE = 'sensitive-values.txt';
const LOG_FILE_BYTES_MAX = 512 * 1024 * 1024;
const HITS_SHOWN_MAX = 20;

const PATTERNS = [
  { name: 'signing secret (sk_…)', regex: /\bsk_[A-Za-z0-9_-]{16,}/ },
  { name: 'full account number', regex: /account_?number["']?\s*[:=]\s*["']?\d{10,}/i },
];

function escapeRegex(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A purely numeric value (a code) must stand alone: not inside a longer number, an amount
 * (`123456.00`) or a JSON number (`"durationMs":123456`). Anything else is a plain substring.
 */
function valueMatcher(value) {
  if (!/^\d+$/.test(value)) return (line) => line.includes(value);
  const regex = new RegExp(`(?<![0-9A-Za-z.:])${escapeRegex(value)}(?![0-9A-Za-z]|\\.\\d)`);
  return (line) => regex.test(line);
}

function logFiles(dir, sinceMs) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return logFiles(file, sinceMs);
    const stats = statSync(file);
    return entry.isFile() && stats.mtimeMs >= sinceMs && stats.size <= LOG_FILE_BYTES_MAX ? [file] : [];
  });
}

/** Where a sensitive value or pattern appears: `[{file, line, what}]` (the value itself is never shown). */
export function scanLogs(profile, { sinceMs }) {
  const valuesFile = path.join(profile.stackDir, SENSITIVE_VALUES_FILE);
  const values = existsSync(valuesFile)
    ? [...new Set(readFileSync(valuesFile, 'utf8').split('\n').filter(Boolean))]
    : [];
  const matchers = [
    ...values.map((value, index) => ({
      what: `recorded value #${index + 1} (${value.length} chars)`,
      test: valueMatcher(value),
    })),
    ...PATTERNS.map(({ name, regex }) => ({ what: name, test: (line) => regex.test(line) })),
  ];
  const hits = [];
  for (const file of logFiles(profile.logsDir, sinceMs)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      for (const matcher of matchers) {
        if (matcher.test(line))
          hits.push({ file: path.relative(profile.repoRoot, file), line: index + 1, what: matcher.what });
      }
    });
  }
  return { values: values.length, hits, shown: hits.slice(0, HITS_SHOWN_MAX) };
}
