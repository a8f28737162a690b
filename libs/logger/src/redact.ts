/**
 * Redaction owned in one place: keys whose values must never reach a log.
 * Secrets, signatures, one-time codes and API secrets are replaced; account
 * numbers and phone numbers keep only their last four characters.
 */
const REDACTED_KEY =
  /^(.*secret.*|.*password.*|.*signature.*|authorization|otp|code|codeHash|x-service-signature|cookie|token|.*encryptionkey.*)$/i;
const MASKED_KEY = /^(accountNumber|destinationAccountNumber|account_number|phone|msisdn)$/i;
const MAX_DEPTH = 6;
/**
 * What each field name was judged to be, so the two patterns run once per name,
 * not once per line: log fields are the code's own few names. Bounded, since
 * nested objects can bring names of their own; past the bound a name is judged
 * afresh each time.
 */
const KEY_VERDICTS_MAX = 2_048;
type KeyVerdict = 'redacted' | 'masked' | 'plain';
const keyVerdicts = new Map<string, KeyVerdict>();

function verdictOf(key: string): KeyVerdict {
  let verdict = keyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = REDACTED_KEY.test(key) ? 'redacted' : MASKED_KEY.test(key) ? 'masked' : 'plain';
    if (keyVerdicts.size < KEY_VERDICTS_MAX) keyVerdicts.set(key, verdict);
  }
  return verdict;
}

export function maskTail(value: string): string {
  return value.length <= 4 ? '****' : `****${value.slice(-4)}`;
}

/**
 * An e-mail address as partners and logs may see it:
 * the first character of the local part, `***`, then `@` and the domain
 * (`j***@example.com`). Anything without a usable `@` masks to `***`.
 */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1 || at === address.length - 1) return '***';
  return `${address[0]}***@${address.slice(at + 1)}`;
}

export function redact(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>))
    out[key] = redactField(key, inner, depth + 1);
  return out;
}

/** One field as it may be logged: judged by its name, then its value (at `depth` inside the record). */
export function redactField(key: string, value: unknown, depth = 1): unknown {
  const verdict = verdictOf(key);
  if (verdict === 'redacted') return '[REDACTED]';
  if (verdict === 'masked' && typeof value === 'string') return maskTail(value);
  return redact(value, depth);
}
