/**
 * Administrator e-mail addresses: where approval codes go. The syntax is a
 * strict subset of RFC 5321/5322: a dot-atom local part (no quoted strings, no
 * comments), ASCII only, at most 64 characters before the `@` and 254 in all.
 * The domain must EQUAL the partner's configured domain, compared without
 * regard to case; nothing is trimmed or normalised beyond that, so subdomains,
 * lookalikes, suffix tricks (`example.com.evil.io`), trailing dots and unicode
 * confusables are all refused rather than "fixed".
 */
export const EMAIL_LENGTH_MAX = 254;
export const LOCAL_PART_LENGTH_MAX = 64;

// RFC 5322 atext: letters, digits and !#$%&'*+/=?^_`{|}~- ; dots only between atoms.
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
// Printable ASCII without space: anything else (unicode, controls, whitespace) is refused outright.
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The address in its stored form (local part as given, domain lower-cased),
 * or null when it is malformed or not on `adminDomain` (already lower case).
 */
export function parseAdminEmail(candidate: unknown, adminDomain: string): string | null {
  if (typeof candidate !== 'string' || candidate.length > EMAIL_LENGTH_MAX || !PRINTABLE_ASCII.test(candidate))
    return null;
  const at = candidate.indexOf('@');
  // Exactly one `@`: a dot-atom local part cannot hold one, so a second means a quoted or forged address.
  if (at < 1 || at !== candidate.lastIndexOf('@')) return null;
  const localPart = candidate.slice(0, at);
  const domain = candidate.slice(at + 1).toLowerCase();
  if (localPart.length > LOCAL_PART_LENGTH_MAX || !DOT_ATOM.test(localPart)) return null;
  if (domain !== adminDomain) return null;
  return `${localPart}@${domain}`;
}

export const ADMIN_NAME_LENGTH_MAX = 200;
// Control characters (C0, DEL, C1) and the line/paragraph separators have no place in a name shown in mail.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The trimmed name, or null when empty, too long or holding control characters. */
export function parseAdminName(candidate: unknown): string | null {
  if (typeof candidate !== 'string') return null;
  const name = candidate.trim();
  if (name.length === 0 || name.length > ADMIN_NAME_LENGTH_MAX || CONTROL.test(name)) return null;
  return name;
}
