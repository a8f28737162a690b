/**
 * A partner as the gateway knows it: identity, display name and its request
 * limit. Created by operators with a caller-made id, so a retried create is
 * recognised: same id and same body is the same partner.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';

export interface NewPartner {
  partnerId: string;
  name: string;
  rateLimitPerMinute: number;
}

export interface Partner extends NewPartner {
  createdAt: string;
}

export const PARTNER_NAME_CHARS_MAX = 200;
// No control characters: the name ends up in logs and operator screens.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Normalises an operator's create request. A limit of 0 means the configured
 * default; anything outside 1..rateLimitMax is refused.
 */
export function parseNewPartner(
  input: { partnerId: string; name: string; rateLimitPerMinute: number },
  limits: { rateLimitDefault: number; rateLimitMax: number },
): NewPartner {
  const name = input.name.trim();
  const rateLimitPerMinute = input.rateLimitPerMinute === 0 ? limits.rateLimitDefault : input.rateLimitPerMinute;
  const bad: string[] = [];
  if (!isUuid(input.partnerId)) bad.push('partnerId');
  if (name.length === 0 || name.length > PARTNER_NAME_CHARS_MAX || CONTROL_CHARACTER.test(name)) bad.push('name');
  if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 1 || rateLimitPerMinute > limits.rateLimitMax) {
    bad.push('rateLimitPerMinute');
  }
  if (bad.length > 0) throw validationFailed(bad);
  return { partnerId: input.partnerId, name, rateLimitPerMinute };
}

/** True when a repeated create carries the body the partner was created with. */
export function sameAsCreated(existing: NewPartner, repeat: NewPartner): boolean {
  return existing.name === repeat.name && existing.rateLimitPerMinute === repeat.rateLimitPerMinute;
}
