import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';

export interface PartnerSettings {
  partnerId: string;
  adminDomain: string;
}

// LDH labels (RFC 1123), at least two labels, ASCII only: a unicode or
// punycode-confusable domain is refused rather than normalised.
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Normalises and checks partner settings; throws VALIDATION_FAILED naming each bad field. */
export function parsePartnerSettings(input: { partnerId: string; adminDomain: string }): PartnerSettings {
  const adminDomain = input.adminDomain.trim().toLowerCase();
  const bad: string[] = [];
  if (!isUuid(input.partnerId)) bad.push('partnerId');
  if (!DOMAIN.test(adminDomain)) bad.push('adminDomain');
  if (bad.length > 0) throw validationFailed(bad);
  return { partnerId: input.partnerId, adminDomain };
}
