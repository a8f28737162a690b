/**
 * Kenyan mobile numbers (MSISDNs) as partners send them, normalised to the
 * international form without the plus, 254XXXXXXXXX (12 digits), which is
 * what the bank's push API takes. Accepted: 07XXXXXXXX and 01XXXXXXXX
 * (national), 2547… / 2541… (international) and the same with a leading +.
 * Spaces, dashes and other prefixes are refused rather than guessed at.
 */
const NATIONAL = /^0([17]\d{8})$/;
const INTERNATIONAL = /^\+?254([17]\d{8})$/;

/** The normalised 254XXXXXXXXX, or null when the value is not a Kenyan mobile number. */
export function normaliseKenyanMsisdn(value: string): string | null {
  const match = NATIONAL.exec(value) ?? INTERNATIONAL.exec(value);
  return match ? `254${match[1]}` : null;
}

/** For logs and support: the last three digits only (a phone number is personal data). */
export function maskMsisdn(msisdn: string): string {
  return `*********${msisdn.slice(-3)}`;
}
